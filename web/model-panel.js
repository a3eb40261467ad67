// The model panel: presets, every setting, and what the engine says of them as they are typed
// (parameter count, memory, or the first problem).
import { coreText, errorText, say, t } from './i18n.js';
import { catalog, describeModel } from './wasm.js';
import { fillForm, inFormWords, readConfig, showErrors } from './config-form.js';
import { send } from './engine.js';
import { applyValues, writeSetup } from './share-link.js';
import { chooseTask, taskChoice, textStats } from './data-panel.js';
import { describeTaskSettings, enableTaskFields } from './task-panel.js';
import { ownedFields } from './setting-fields.js';
import { bytes, count, sentences } from './format.js';
import { render, state } from './phase.js';

const $ = (id) => document.getElementById(id);
const ui = { preset: $('preset'), description: $('preset-description'), form: $('config'), size: $('model-size'), error: $('config-error') };

/** What a tab can train: wasm32 memory ends at 4 GiB, and a step must leave room for the page. */
export const BUDGET = { max_params: 50_000_000, max_training_bytes: 2 ** 31 };

/** The most Web Workers the page will start; a step splits into at most 8 shards anyway. */
const MAX_WORKERS = 16;

/** The Optimizer menu and each optimiser's own settings, from the engine's description of them. */
const optimizerMenu = ui.form.elements.optimizer;
const { optimizers, presets } = catalog();
optimizerMenu.append(...optimizers.map((o) => new Option(coreText(o.title), o.name)));
const showOptimizerFields = ownedFields(document.getElementById('optimizer-fields'), optimizers, ui.form.id);

/** The preset chosen, for naming runs. */
export const presetName = () => ui.preset.value;

/** Lists the presets, fills the form from the first (or from a shared `setup`), and checks it on every edit. */
export function initModel(setup) {
  const workers = ui.form.elements.workers;
  for (let n = 1; n <= MAX_WORKERS; n++) workers.append(new Option(String(n), String(n)));
  workers.addEventListener('change', sendWorkers);
  sendWorkers();
  // The models built by hand (their settings name one) in a group of their own, after the trained.
  const built = document.createElement('optgroup');
  built.label = t('model.built-presets');
  for (const preset of presets) {
    const option = new Option(coreText(preset.name), preset.name);
    option.dataset.preset = JSON.stringify(preset);
    (preset.settings.built ? built : ui.preset).append(option);
  }
  ui.preset.append(built);
  ui.preset.addEventListener('change', applyPreset);
  ui.form.addEventListener('input', validate);
  // A task's settings sit in the data panel, tied to the form by their form attribute.
  document.getElementById('task-panel').addEventListener('input', validate);
  ui.form.addEventListener('submit', (e) => e.preventDefault());
  if (setup && [...ui.preset.options].some((o) => o.value === setup.preset)) ui.preset.value = setup.preset;
  applyPreset();
  if (setup) {
    applyValues(ui.form, setup.values);
    validate();
  }
}

const presetOf = (option) => JSON.parse(option.dataset.preset);

/** Fills the form from the chosen preset; a task's preset chooses its task too. */
function applyPreset() {
  const preset = presetOf(ui.preset.selectedOptions[0]);
  fillForm(ui.form, preset.settings);
  ui.description.textContent = coreText(preset.description);
  if (preset.settings.task) chooseTask(preset.settings.task.name);
  validate();
}

/**
 * The person picked another corpus or task: a task brings its own preset, and a text after a
 * task's preset goes back to the first text preset.
 */
export function corpusChosen() {
  const task = taskChoice();
  const current = presetOf(ui.preset.selectedOptions[0]).settings.task?.name ?? null;
  if (task === current || (!task && !current)) return;
  const fits = [...ui.preset.options].find((o) => (presetOf(o).settings.task?.name ?? null) === task);
  if (!fits) return;
  ui.preset.value = fits.value;
  applyPreset();
}

/**
 * How many Web Workers train, as the Workers field says: a count, or 'auto' for the fastest count
 * up to one per core the browser reports (the training worker times them).
 */
function sendWorkers() {
  const { value } = ui.form.elements.workers;
  const most = Math.min(navigator.hardwareConcurrency || 1, MAX_WORKERS);
  send({ type: 'workers', count: value === 'auto' ? value : Number(value), most });
}

/** Shows a loaded model's settings in the form. */
export function showSettings(settings) {
  fillForm(ui.form, settings);
  validate();
}

/** Checks the form with the engine, showing each problem beside its field; returns the settings. */
export function validate() {
  const task = taskChoice();
  enableTaskFields(task);
  // A task brings its own symbols: the tokenizer is the text's choice.
  ui.form.elements.tokenizer.disabled = Boolean(task);
  ui.form.elements.bpe_vocab_size.disabled = Boolean(task) || ui.form.elements.tokenizer.value !== 'bpe';
  showOptimizerFields(optimizerMenu.value);
  const read = readConfig(ui.form);
  const { config } = read;
  if (task) config.task = { ...config.task, name: task };
  let { errors } = read;
  let [size, summary] = [null, null];
  if (errors.length === 0) {
    try {
      ({ errors, size, task: summary } = describeModel(config, textStats(), BUDGET));
      errors = errors.map((p) => ({ field: p.field, message: say(p.words) }));
    } catch (e) {
      errors.push({ field: 'settings', message: errorText(e) });
    }
  }
  if (task) describeTaskSettings(config.task, summary, config.train.max_iters);
  ui.size.textContent = size ? t('model.size', { params: count(size.params), memory: bytes(size.training_bytes) }) : '';
  const general = showErrors(ui.form, errors);
  ui.error.textContent = sentences(general.map((p) => inFormWords(ui.form, p.message)));
  state.configValid = errors.length === 0;
  state.configProblem = errors.length ? inFormWords(ui.form, errors[0].message) : '';
  render();
  writeSetup(ui.form);
  return config;
}

/** Shows an error the engine found on use (a thrown error with a `field`) beside its field. */
export function showFieldError(error) {
  return showErrors(ui.form, [{ field: error.field ?? 'settings', message: error.message }]).length === 0;
}
