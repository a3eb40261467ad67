// The model and training form: filled from a preset, read back as the engine's config object.

/** Settings of the tokenizer, at the top level of the config next to `model` and `train`. */
const TOP_FIELDS = new Set(['tokenizer', 'bpe_vocab_size']);
const MODEL_FIELDS = new Set(['n_layer', 'n_head', 'n_embd', 'block_size', 'dropout', 'bias', 'norm', 'activation', 'tie_weights']);

/** Sets every field from a preset's or checkpoint's `model` and `train` (and tokenizer) settings. */
export function fillForm(form, preset) {
  for (const el of form.elements) {
    if (!el.name) continue;
    const group = TOP_FIELDS.has(el.name) ? preset : MODEL_FIELDS.has(el.name) ? preset.model : preset.train;
    const value = group[el.name];
    if (value === undefined) continue;
    if (el.type === 'checkbox') el.checked = value;
    else el.value = settingText(value);
  }
}

/** A setting as a field shows it: f32 values arrive as 0.003000000026, and 0.003 is what was meant. */
export const settingText = (value) => (typeof value === 'number' ? String(Number(value.toPrecision(6))) : String(value));

/** The label's text of a form control, without the value, for messages. */
const labelOf = (el) => el.closest('label')?.firstChild?.textContent.trim() || el.name;

/**
 * Reads a number input: `{ value }` or `{ problem }` when it is empty, not a number, or not whole
 * where a count is needed. Range checks are the engine's job, so its messages are the only ones.
 */
export function readNumber(el) {
  const text = el.value.trim();
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) return { problem: `${labelOf(el)} must be a number.` };
  if (el.step === '1' && !Number.isInteger(value)) return { problem: `${labelOf(el)} must be a whole number.` };
  if (el.step === '1' && value < 0) return { problem: `${labelOf(el)} cannot be negative.` };
  return { value };
}

/** `{ config }` for the engine, or `{ problem }` naming the first field that is not a number. */
export function readConfig(form) {
  const config = { model: {}, train: {}, tokenizer: 'char' };
  for (const el of form.elements) {
    if (!el.name || el.disabled) continue;
    let value;
    if (el.type === 'checkbox') value = el.checked;
    else if (el.type === 'number') {
      const read = readNumber(el);
      if (read.problem) return { problem: read.problem, field: el };
      value = read.value;
    } else value = el.value;
    if (TOP_FIELDS.has(el.name)) config[el.name] = value;
    else config[MODEL_FIELDS.has(el.name) ? 'model' : 'train'][el.name] = value;
  }
  // The cosine schedule ends where training does, as in nanoGPT's recipes.
  config.train.lr_decay_iters = config.train.max_iters;
  return { config };
}
