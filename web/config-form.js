// The model and training form: filled from a preset or a run's settings, read back as the engine's Settings.
import { t } from './i18n.js';
import { catalog } from './wasm.js';
import { labelOf, settingNames } from './setting-fields.js';

/** Settings at the top level of the config next to `model` and `train`: the tokenizer's, and the built model a preset names. */
const TOP_FIELDS = new Set(['tokenizer', 'bpe_vocab_size', 'built']);
const MODEL_FIELDS = new Set(['n_layer', 'n_head', 'n_embd', 'block_size', 'dropout', 'bias', 'norm', 'activation', 'tie_weights', 'rope', 'qk_norm']);
/** A task's settings, as the engine describes them (the data panel's fields, in this form by their form attribute). */
const TASK_FIELDS = settingNames(catalog().tasks);

/** Which part of the settings a field belongs to. */
function groupOf(settings, name) {
  if (TOP_FIELDS.has(name)) return settings;
  if (TASK_FIELDS.has(name)) return settings.task ?? {};
  return MODEL_FIELDS.has(name) ? settings.model : settings.train;
}

/** Sets every field from a preset's or run's settings (not the page's own fields, data-local). */
export function fillForm(form, preset) {
  for (const el of form.elements) {
    if (!el.name || 'local' in el.dataset) continue;
    const value = groupOf(preset, el.name)[el.name];
    if (value === undefined) continue;
    if (el.type === 'checkbox') el.checked = value;
    else el.value = settingText(value);
  }
}

/**
 * `settings` with `values` (text by field name, as a link or a lesson writes them: `n_layer=4`,
 * `rope=1`) set as the form would read them from its fields.
 */
export function settingsWith(form, settings, values) {
  const out = structuredClone(settings);
  for (const [name, text] of Object.entries(values)) {
    const el = form.elements.namedItem(name);
    if (!el?.closest || 'local' in el.dataset) continue;
    const value = el.type === 'checkbox' ? text === '1' : el.type === 'number' ? (text === '' ? null : Number(text)) : text;
    if (TASK_FIELDS.has(name)) out.task = { ...out.task, [name]: value };
    else groupOf(out, name)[name] = value;
  }
  return out;
}

/** A setting as a field shows it (null, an automatic setting, as an empty field): f32 values arrive as 0.003000000026, and 0.003 is what was meant. */
export const settingText = (value) => {
  if (value === null) return '';
  return typeof value === 'number' ? String(Number(value.toPrecision(6))) : String(value);
};


/**
 * An engine message in the form's words: each setting it names (`n_head`, `learning_rate`, or a
 * plain name opening the message) as the form's label names it ("n_head must be at least 1" →
 * "Heads must be at least 1"). The engine still decides every rule; the page only renames.
 */
export function inFormWords(form, message) {
  return message.replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|^[a-z]+\b/g, (name) => {
    const el = form.elements.namedItem(name);
    return el?.closest ? labelOf(el) : name;
  });
}

/** What the form calls the setting at `path` (`train.learning_rate` → "Learning rate"), or the path. */
export function settingLabel(form, path) {
  const el = form.elements.namedItem(path.split('.').at(-1));
  return el?.closest ? labelOf(el) : path;
}

/**
 * Reads a number input: `{ value }` or `{ error }` when it is empty, not a number, or not whole
 * where a count is needed. An empty optional field (`data-optional`, shown as "auto") reads as
 * null. Range checks are the engine's job, so its messages are the only ones.
 */
export function readNumber(el) {
  const text = el.value.trim();
  if (text === '' && 'optional' in el.dataset) return { value: null };
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) return { error: t('form.not-a-number', { field: labelOf(el) }) };
  if (el.step === '1' && !Number.isInteger(value)) return { error: t('form.not-whole', { field: labelOf(el) }) };
  if (el.step === '1' && value < 0) return { error: t('form.negative', { field: labelOf(el) }) };
  return { value };
}

/**
 * `{ config, errors }`: the Settings for the engine (a task's enabled fields in `config.task`),
 * and each field that is not a number.
 */
export function readConfig(form) {
  const config = { model: {}, train: {}, tokenizer: 'char' };
  const errors = [];
  for (const el of form.elements) {
    if (!el.name || el.disabled || 'local' in el.dataset) continue; // data-local: the page's, not the run's
    let value;
    if (el.type === 'checkbox') value = el.checked;
    else if (el.type === 'number') {
      const read = readNumber(el);
      if (read.error) errors.push({ field: el.name, message: read.error });
      value = read.value;
    } else value = el.type === 'hidden' && el.value === '' ? null : el.value; // an empty hidden field: none
    if (TASK_FIELDS.has(el.name)) config.task = { ...config.task, [el.name]: value };
    else if (TOP_FIELDS.has(el.name)) config[el.name] = value;
    else config[MODEL_FIELDS.has(el.name) ? 'model' : 'train'][el.name] = value;
  }
  return { config, errors };
}

/**
 * Shows each error ({ field, message }, field being a setting's path such as `train.max_iters`)
 * beside the control of that name, in the form's words and marked invalid for screen readers;
 * returns the errors with no control here (about the text, or the model as a whole), for the
 * caller to show.
 */
export function showErrors(form, errors) {
  // The form's controls, those placed elsewhere by a form attribute too (a task's settings).
  for (const el of [...form.elements].filter((e) => e.hasAttribute('aria-invalid'))) {
    document.getElementById(el.getAttribute('aria-describedby'))?.remove();
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-describedby');
  }
  return errors.filter(({ field, message }) => {
    // namedItem, not [name]: `elements.length` is the count of controls, not the length field.
    const el = form.elements.namedItem(field.split('.').at(-1));
    if (!el?.closest?.('label')) return true; // no control shows it (a hidden field's: the built model's)
    const note = document.createElement('span');
    note.className = 'field-error';
    note.id = `${form.id}-${el.name}-error`;
    note.textContent = inFormWords(form, message);
    el.closest('label').after(note); // outside the label, so it is not part of the field's name
    el.setAttribute('aria-invalid', 'true');
    el.setAttribute('aria-describedby', note.id);
    return false;
  });
}
