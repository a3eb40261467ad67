// The sample panel: streamed generations, and the model's most likely next tokens after the prompt.
import { decimal, t } from './i18n.js';
import { readNumber, settingText, showErrors } from './config-form.js';
import { on, send } from './engine.js';
import { sentences, tokenLabel } from './format.js';
import { render, state } from './phase.js';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('sample-form'), prompt: $('prompt'), error: $('sample-error'), output: $('sample-output'),
  nextTitle: $('next-title'), nextHint: $('next-hint'), nextTokens: $('next-tokens'),
};

/** The prompt as typed. */
export const promptText = () => ui.prompt.value;

/** The draw's settings as the form holds them (its defaults where a field is not a number). */
export function samplingSettings() {
  const read = (name, fallback) => readNumber(ui.form.elements[name]).value ?? fallback;
  return { temperature: read('temperature', 0.8), top_k: read('top_k', 0), seed: read('seed', 1337) };
}

/** Shows errors beside the sample form's fields; any without a field goes under the form. */
function showSampleErrors(errors) {
  ui.error.textContent = sentences(showErrors(ui.form, errors).map((p) => p.message));
}

function generate(event) {
  event.preventDefault();
  const options = { prompt: ui.prompt.value };
  const errors = [];
  for (const name of ['temperature', 'top_k', 'max_new_tokens', 'seed']) {
    const read = readNumber(ui.form.elements[name]);
    if (read.error) errors.push({ field: name, message: read.error });
    options[name] = read.value;
  }
  showSampleErrors(errors);
  if (errors.length > 0) return;
  const promptSpan = document.createElement('strong');
  promptSpan.textContent = options.prompt;
  ui.output.replaceChildren(promptSpan);
  state.sampleRunning = true;
  render();
  send({ type: 'sample', options });
}

let nextTimer = 0;
/** Asks for the next-token distribution after the prompt, at the sampling temperature. */
function nextQueryChanged() {
  clearTimeout(nextTimer);
  nextTimer = setTimeout(() => {
    const read = readNumber(ui.form.elements.temperature);
    send({ type: 'next', prompt: ui.prompt.value, temperature: read.value ?? 1 });
  }, 150);
}

/** The most likely next tokens as labelled bars, under a title that says at what temperature. */
function showNextTokens({ next: { temperature, greedy, tokens } }) {
  ui.nextTitle.textContent = t(greedy ? 'sample.next-title-greedy' : 'sample.next-title', { temperature: settingText(temperature) });
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
    value.textContent = `${decimal(prob * 100, 1)}%`;
    item.setAttribute('aria-label', `${tokenLabel(token)}: ${value.textContent}`);
    item.append(label, bar, value);
    return item;
  }));
}

/** Puts back the prompt and settings of a loaded model's last generation. */
export function restoreSampleSettings(lastSample) {
  for (const [name, value] of Object.entries(lastSample ?? {})) ui.form.elements[name].value = settingText(value);
  nextQueryChanged();
}

/** Puts back a saved run's prompt (its last generation's settings come with the checkpoint). */
export function restorePrompt(prompt) {
  ui.prompt.value = prompt;
  nextQueryChanged();
}

/** Empties the output and the next-token list, as when the model is discarded. */
export function clearSamples() {
  ui.output.replaceChildren();
  ui.nextTokens.replaceChildren();
  ui.nextHint.textContent = t('sample.no-model');
}

export function initSampling() {
  ui.form.addEventListener('submit', generate);
  ui.prompt.addEventListener('input', nextQueryChanged);
  ui.form.elements.temperature.addEventListener('input', nextQueryChanged);
  ui.nextHint.textContent = t('sample.no-model');
  nextQueryChanged();
  on('sample-chunk', ({ text }) => ui.output.append(text));
  on('sample-done', () => {
    state.sampleRunning = false;
    render();
  });
  on('next-tokens', showNextTokens);
  on('error:sample', ({ message, field }) => showSampleErrors([{ field: field ?? 'prompt', message }]));
  on('error:next', ({ message }) => {
    ui.nextTokens.replaceChildren();
    ui.nextHint.textContent = message;
  });
}
