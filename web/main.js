// The page: wires the data, model, training, sampling and attention panels to the training worker.
// The wasm engine also loads here, but only for cheap calls (presets, validation, text summaries).
import init, { describeModel, presets, summarizeText, version } from '../pkg/gpt_playground.js';
import { fillForm, readConfig, readNumber, settingText } from './config-form.js';
import { LossChart } from './loss-chart.js';
import { AttentionView } from './attention-view.js';
import { bytes, count, duration, tokenLabel } from './format.js';

const $ = (id) => document.getElementById(id);
const ui = {
  status: $('status'), corpus: $('corpus'), upload: $('upload'), text: $('text'), summary: $('text-summary'),
  credit: $('corpus-credit'), preset: $('preset'), presetDescription: $('preset-description'), form: $('config'),
  size: $('model-size'), configError: $('config-error'), train: $('train'), pause: $('pause'), resume: $('resume'),
  reset: $('reset'), save: $('save'), load: $('load'), progress: $('progress'), stats: $('stats'), trainError: $('train-error'),
  sampleForm: $('sample-form'), prompt: $('prompt'), generate: $('generate'), sampleError: $('sample-error'),
  sampleOutput: $('sample-output'), nextTitle: $('next-title'), nextHint: $('next-hint'), nextTokens: $('next-tokens'),
  attentionText: $('attention-text'), attentionError: $('attention-error'),
};
const OWN_TEXT = 'own';
const NO_MODEL_YET = 'Train a model to see its guesses.';
const TRAIN_ON = 'raise Iterations and Resume to train on';
const MAX_UPLOAD_BYTES = 50 * 2 ** 20;

const state = {
  phase: 'loading', // loading | idle | creating | training | pausing | paused | finished | crashed
  steps: 0,
  firstStep: 0, // the step the model was at when it was built or loaded in this tab
  total: 0,
  vocabSize: 0,
  configValid: false,
  sampling: false,
};

const chart = new LossChart($('loss-chart'), $('loss-tooltip'));
const attention = new AttentionView({
  grid: $('attention-grid'), dialog: $('attention-dialog'), dialogTitle: $('attention-dialog-title'),
  large: $('attention-large'), readout: $('attention-large-readout'), tooltip: $('attention-tooltip'),
});
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const send = (message, transfer = []) => worker.postMessage(message, transfer);

function setStatus(text, isError = false) {
  ui.status.textContent = text;
  ui.status.classList.toggle('error', isError);
}

/** The Iterations field: how many steps in all a resumed run goes on to. */
const targetSteps = () => readNumber(ui.form.elements.max_iters).value ?? 0;

/** Enables exactly the controls that make sense in the current phase. */
function render() {
  const { phase } = state;
  const hasModel = ['training', 'pausing', 'paused', 'finished'].includes(phase);
  ui.train.disabled = !(state.configValid && ['idle', 'paused', 'finished'].includes(phase));
  ui.pause.disabled = phase !== 'training';
  ui.resume.disabled = !(['paused', 'finished'].includes(phase) && targetSteps() > state.steps);
  ui.reset.disabled = !hasModel || phase === 'training';
  ui.save.disabled = !hasModel || phase === 'training';
  ui.load.disabled = ['loading', 'creating', 'training', 'pausing', 'crashed'].includes(phase);
  ui.generate.disabled = !hasModel || state.sampling;
}

// ---- Data ----

async function loadCorpus() {
  const choice = ui.corpus.selectedOptions[0];
  ui.credit.replaceChildren();
  if (choice.value === OWN_TEXT) {
    ui.text.value = '';
    ui.text.focus();
    ui.credit.textContent = 'Paste or upload any UTF-8 text. It never leaves this tab.';
  } else {
    const corpus = JSON.parse(choice.dataset.corpus);
    ui.text.value = 'Loading…';
    const response = await fetch(new URL(`../assets/${corpus.file}`, import.meta.url));
    if (!response.ok) throw new Error(`could not load ${corpus.file} (HTTP ${response.status})`);
    ui.text.value = await response.text();
    const link = document.createElement('a');
    link.href = corpus.url;
    link.textContent = corpus.source;
    link.rel = 'noopener';
    ui.credit.append(`${corpus.description} Source: `, link, `. License: ${corpus.license}.`);
  }
  textChanged();
}

async function uploadFile() {
  const file = ui.upload.files[0];
  if (!file) return;
  ui.upload.value = '';
  if (file.size > MAX_UPLOAD_BYTES) {
    ui.credit.textContent = `${file.name} is ${bytes(file.size)}; the playground takes up to ${bytes(MAX_UPLOAD_BYTES)}.`;
    return;
  }
  try {
    ui.text.value = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
    ui.corpus.value = OWN_TEXT;
    ui.credit.textContent = `Loaded ${file.name}. It never leaves this tab.`;
    textChanged();
  } catch {
    ui.credit.textContent = `${file.name} is not UTF-8 text: save it as UTF-8 plain text and try again.`;
  }
}

let textTimer = 0;
function textChanged() {
  clearTimeout(textTimer);
  textTimer = setTimeout(() => {
    const { chars, vocab_size: vocab } = summarizeText(ui.text.value);
    state.vocabSize = vocab;
    ui.summary.textContent = chars === 0 ? 'No text yet.' : `${count(chars)} characters · vocabulary of ${vocab} distinct characters`;
    validate();
  }, 150);
}

/** Lists the BPE merges a new model learned, as `left + right → joined`. */
function showMerges(merges) {
  const details = $('merges');
  details.hidden = merges.length === 0;
  $('merges-title').textContent = `Learned byte-pair merges (${count(merges.length)})`;
  $('merges-list').replaceChildren(...merges.slice(0, 500).map(([a, b]) => {
    const item = document.createElement('li');
    item.textContent = `${tokenLabel(a)} + ${tokenLabel(b)} → ${tokenLabel(a + b)}`;
    return item;
  }));
}

// ---- Model ----

function validate() {
  ui.form.elements.bpe_vocab_size.disabled = ui.form.elements.tokenizer.value !== 'bpe';
  const read = readConfig(ui.form);
  let problem = read.problem;
  if (!problem && state.vocabSize === 0) problem = 'Pick a corpus or paste some text to train on.';
  if (!problem) {
    try {
      const size = describeModel(read.config, state.vocabSize);
      ui.size.textContent = `${count(size.params)} parameters · about ${bytes(size.training_bytes)} to train`;
    } catch (e) {
      problem = e.message;
    }
  }
  if (problem) ui.size.textContent = '';
  ui.configError.textContent = problem ?? '';
  state.configValid = !problem;
  render();
  return read.config;
}

function applyPreset() {
  const preset = JSON.parse(ui.preset.selectedOptions[0].dataset.preset);
  fillForm(ui.form, preset);
  ui.presetDescription.textContent = preset.description;
  validate();
}

// ---- Training ----

function startTraining() {
  if (state.steps > 0 && !confirm(`Start over? The current model (${state.steps} steps) will be discarded.`)) return;
  const config = validate();
  if (!state.configValid) return;
  ui.trainError.textContent = '';
  state.phase = 'creating';
  state.total = config.train.max_iters;
  setStatus(config.tokenizer === 'bpe' ? 'Learning the byte-pair vocabulary, then building the model…' : 'Building the model…');
  render();
  if (!ui.attentionText.value) ui.attentionText.value = corpusSnippet(config.model.block_size);
  send({ type: 'create', config, text: ui.text.value, attentionText: ui.attentionText.value });
}

/** Goes on training the current model, up to the Iterations field (which may have been raised). */
function resumeTraining() {
  state.total = targetSteps();
  chart.setTotal(state.total);
  state.phase = 'training';
  setStatus('Training…');
  ui.trainError.textContent = '';
  render();
  send({ type: 'train', maxIters: state.total });
}

function resetModel() {
  if (state.steps > 0 && !confirm(`Discard the current model (${state.steps} steps)?`)) return;
  send({ type: 'reset' });
  Object.assign(state, { phase: 'idle', steps: 0, sampling: false });
  chart.reset(0, 1);
  attention.clear();
  ui.sampleOutput.replaceChildren();
  ui.nextTokens.replaceChildren();
  ui.nextHint.textContent = NO_MODEL_YET;
  ui.progress.value = 0;
  ui.stats.textContent = '';
  setStatus('Ready.');
  render();
}

function saveCheckpoint() {
  send({ type: 'save' });
}

async function loadCheckpoint() {
  const file = ui.load.files[0];
  if (!file) return;
  ui.load.value = '';
  if (state.steps > 0 && !confirm(`Replace the current model (${state.steps} steps) with ${file.name}?`)) return;
  ui.trainError.textContent = '';
  setStatus(`Loading ${file.name}…`);
  const bytes = await file.arrayBuffer();
  send({ type: 'load', bytes, text: ui.text.value, attentionText: ui.attentionText.value }, [bytes]);
}

function showProgress({ stats, total }) {
  state.steps = stats.step;
  chart.addLosses(stats.losses);
  ui.progress.max = total;
  ui.progress.value = stats.step;
  // elapsed_s counts this model's time in this tab, so only the steps taken here.
  const eta = (total - stats.step) * (stats.elapsed_s / Math.max(1, stats.step - state.firstStep));
  ui.stats.textContent = `step ${count(stats.step)} / ${count(total)} · loss ${stats.loss.toFixed(3)} · `
    + `${count(Math.round(stats.tokens_per_s))} tokens/s · lr ${stats.lr.toExponential(2)} · `
    + `elapsed ${duration(stats.elapsed_s)} · ETA ${duration(eta)}`;
}

// ---- Sampling and attention ----

function generate(event) {
  event.preventDefault();
  const options = { prompt: ui.prompt.value };
  for (const name of ['temperature', 'top_k', 'max_new_tokens', 'seed']) {
    const read = readNumber(ui.sampleForm.elements[name]);
    if (read.problem) {
      ui.sampleError.textContent = read.problem;
      return;
    }
    options[name] = read.value;
  }
  ui.sampleError.textContent = '';
  const promptSpan = document.createElement('strong');
  promptSpan.textContent = options.prompt;
  ui.sampleOutput.replaceChildren(promptSpan);
  state.sampling = true;
  render();
  send({ type: 'sample', options });
}

let nextTimer = 0;
/** Asks for the next-token distribution after the prompt, at the sampling temperature. */
function nextQueryChanged() {
  clearTimeout(nextTimer);
  nextTimer = setTimeout(() => {
    const typed = Number(ui.sampleForm.elements.temperature.value);
    const temperature = typed > 0 && typed <= 100 ? typed : 1;
    ui.nextTitle.textContent = `Most likely next tokens (temperature ${temperature}${typed === 0 ? '; greedy takes the first' : ''})`;
    send({ type: 'next', prompt: ui.prompt.value, temperature });
  }, 150);
}

/** The most likely next tokens as labelled bars. */
function showNextTokens(tokens) {
  ui.nextHint.textContent = '';
  ui.nextTokens.replaceChildren(...tokens.map(({ token, prob }) => {
    const item = document.createElement('li');
    const label = document.createElement('span');
    label.className = 'token';
    label.textContent = tokenLabel(token);
    label.title = JSON.stringify(token);
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${(prob * 100).toFixed(1)}%`;
    const value = document.createElement('span');
    value.className = 'prob';
    value.textContent = `${(prob * 100).toFixed(1)}%`;
    item.setAttribute('aria-label', `${tokenLabel(token)}: ${value.textContent}`);
    item.append(label, bar, value);
    return item;
  }));
}

/** A line-aligned piece of the training text, about one block long. */
function corpusSnippet(blockSize) {
  const text = ui.text.value;
  if (text.length <= blockSize) return text;
  const start = Math.floor(Math.random() * (text.length - blockSize));
  const lineStart = text.lastIndexOf('\n', start) + 1;
  return [...text.slice(lineStart, lineStart + blockSize * 2)].slice(0, blockSize).join('');
}

let attentionTimer = 0;
function attentionTextChanged() {
  clearTimeout(attentionTimer);
  attentionTimer = setTimeout(() => {
    ui.attentionError.textContent = '';
    send({ type: 'attention', text: ui.attentionText.value });
  }, 200);
}

// ---- Messages from the worker ----

const onMessage = {
  ready() {
    if (state.phase === 'crashed') return;
    state.phase = 'idle';
    setStatus('Ready. Pick a corpus and a preset, then press Train.');
    validate();
  },
  created({ vocabSize, merges }) {
    showMerges(merges);
    chart.reset(vocabSize, state.total);
    state.steps = 0;
    state.firstStep = 0;
    state.phase = 'training';
    setStatus('Training…');
    render();
    send({ type: 'train' });
  },
  loaded({ settings, history, vocabSize, step, merges, sampling }) {
    showMerges(merges);
    fillForm(ui.form, settings);
    for (const [name, value] of Object.entries(sampling ?? {})) ui.sampleForm.elements[name].value = settingText(value);
    nextQueryChanged();
    validate();
    state.total = settings.train.max_iters;
    state.steps = step;
    state.firstStep = step;
    chart.reset(vocabSize, state.total);
    chart.addLosses(history.losses);
    history.evals.forEach((e) => chart.addEvaluation(e));
    ui.progress.max = state.total;
    ui.progress.value = step;
    ui.stats.textContent = `step ${count(step)} / ${count(state.total)} (loaded from a checkpoint)`;
    state.phase = step >= state.total ? 'finished' : 'paused';
    setStatus(`Loaded a model at step ${count(step)}. ${state.phase === 'paused' ? 'Resume to keep training, or sample.' : `Sample from it, or ${TRAIN_ON}.`}`);
    render();
  },
  saved({ bytes, step }) {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    link.download = `gpt-playground-step${step}.safetensors`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    setStatus(`Saved the model at step ${count(step)} as ${link.download}.`);
  },
  progress: showProgress,
  eval({ evaluation }) {
    chart.addEvaluation(evaluation);
  },
  'next-tokens'({ tokens }) {
    showNextTokens(tokens);
  },
  attention({ maps }) {
    ui.attentionError.textContent = '';
    attention.update(maps);
  },
  paused() {
    state.phase = 'paused';
    setStatus(`Paused at step ${count(state.steps)}. Resume, sample, or inspect the attention.`);
    render();
  },
  finished() {
    state.phase = 'finished';
    setStatus(`Finished ${count(state.steps)} steps. Sample, or ${TRAIN_ON}.`);
    render();
  },
  'sample-chunk'({ text }) {
    ui.sampleOutput.append(text);
  },
  'sample-done'() {
    state.sampling = false;
    render();
  },
  error({ context, message }) {
    if (context === 'next') {
      ui.nextTokens.replaceChildren();
      ui.nextHint.textContent = message;
      return;
    }
    const target = { sample: ui.sampleError, attention: ui.attentionError }[context] ?? ui.trainError;
    target.textContent = message;
    if (context === 'create' || context === 'load') {
      state.phase = state.steps > 0 ? 'paused' : 'idle';
      setStatus(context === 'load' ? 'The checkpoint was not loaded; the current model is unchanged.' : 'Ready.', context === 'load');
    }
    if (context === 'training' || context === 'train') {
      state.phase = 'paused';
      setStatus(`Stopped at step ${count(state.steps)}.`, true);
    }
    render();
  },
  crashed({ message }) {
    state.phase = 'crashed';
    setStatus(`The model engine stopped: ${message} Reload the page to start again.`, true);
    render();
  },
};
worker.onmessage = ({ data }) => onMessage[data.type]?.(data);
worker.onerror = (e) => onMessage.crashed({ message: e.message ?? 'the training worker failed to start.' });

// ---- Start-up ----

try {
  await init();
  $('version').textContent = `gpt-playground ${version()}`;
  for (const preset of presets()) {
    const option = new Option(preset.name, preset.name);
    option.dataset.preset = JSON.stringify(preset);
    ui.preset.append(option);
  }
  const corpora = await (await fetch(new URL('../assets/corpora.json', import.meta.url))).json();
  for (const corpus of corpora) {
    const option = new Option(corpus.title, corpus.id);
    option.dataset.corpus = JSON.stringify(corpus);
    ui.corpus.append(option);
  }
  ui.corpus.append(new Option('Your own text', OWN_TEXT));
  applyPreset();
  ui.nextHint.textContent = NO_MODEL_YET;
  nextQueryChanged();
  await loadCorpus();
} catch (e) {
  state.phase = 'crashed';
  render();
  setStatus(`The playground failed to load: ${e.message}. Build the engine with wasm-pack build --target web, and serve the repository over HTTP.`, true);
}

ui.corpus.addEventListener('change', () => loadCorpus().catch((e) => { ui.credit.textContent = e.message; }));
ui.upload.addEventListener('change', uploadFile);
ui.text.addEventListener('input', textChanged);
ui.preset.addEventListener('change', applyPreset);
ui.form.addEventListener('input', validate);
ui.form.addEventListener('submit', (e) => e.preventDefault());
ui.train.addEventListener('click', startTraining);
ui.pause.addEventListener('click', () => { state.phase = 'pausing'; render(); send({ type: 'pause' }); });
ui.resume.addEventListener('click', resumeTraining);
ui.reset.addEventListener('click', resetModel);
ui.save.addEventListener('click', saveCheckpoint);
ui.load.addEventListener('change', loadCheckpoint);
ui.sampleForm.addEventListener('submit', generate);
ui.prompt.addEventListener('input', nextQueryChanged);
ui.sampleForm.elements.temperature.addEventListener('input', nextQueryChanged);
ui.attentionText.addEventListener('input', attentionTextChanged);
$('attention-from-prompt').addEventListener('click', () => { ui.attentionText.value = ui.prompt.value; attentionTextChanged(); });
$('attention-from-corpus').addEventListener('click', () => {
  ui.attentionText.value = corpusSnippet(readConfig(ui.form).config?.model.block_size ?? 32);
  attentionTextChanged();
});
