// The training state machine: the page's phase changes here and only here, and each change
// enables exactly the controls that make sense in it.
import { t } from './i18n.js';
import { readNumber } from './config-form.js';

const $ = (id) => document.getElementById(id);
const ui = {
  status: $('status'), error: $('train-error'), why: $('train-why'), train: $('train'), pause: $('pause'), resume: $('resume'),
  reset: $('reset'), save: $('save'), exportRun: $('export'), load: $('load'), generate: $('generate'), solve: $('solve'),
  iterations: $('config').elements.max_iters,
};

/** loading → idle → creating → training ⇄ (pausing →) paused → finished; crashed is final. */
export const state = {
  phase: 'loading',
  steps: 0, // steps the current model has done
  configValid: false, // the model form holds settings the engine accepts
  configProblem: '', // the first thing wrong with the form's settings, in its words
  textPending: false, // a text (not a task) is chosen, and it is not counted yet
  sampleRunning: false, // a sample is streaming in
  hasText: true, // the model can train on the text in the box (see text-fit.js)
  task: null, // the task the current model trains on (its name), or null for a text
};

/** Whether a model exists to sample from, save or train on. */
export const hasModel = () => ['training', 'pausing', 'paused', 'finished'].includes(state.phase);

export function setStatus(text, isError = false) {
  ui.status.textContent = text;
  ui.status.classList.toggle('error', isError);
}

/** A problem with training, a checkpoint or the model, shown under the training controls. */
export function showError(message) {
  ui.error.textContent = message;
}

/** Moves to `phase`, with `status` as the status line when given. */
export function setPhase(phase, status, isError = false) {
  state.phase = phase;
  if (status !== undefined) setStatus(status, isError);
  render();
}

/**
 * Why Train and Resume cannot act now although the phase would let them ('' when nothing stops
 * them): a control never ignores a click in silence, it is disabled with this reason shown.
 */
export function whyBlocked() {
  if (state.textPending) return t('phase.wait-count');
  if (!state.configValid) return t('phase.wait-settings', { problem: state.configProblem || t('phase.see-fields') });
  return '';
}

/** Enables exactly the controls that make sense in the current phase. */
export function render() {
  const { phase } = state;
  const target = readNumber(ui.iterations).value ?? 0;
  const blocked = whyBlocked();
  const idle = ['idle', 'paused', 'finished'].includes(phase);
  ui.train.disabled = !(!blocked && idle);
  ui.pause.disabled = phase !== 'training';
  ui.resume.disabled = !(!blocked && state.hasText && (phase === 'paused' || (phase === 'finished' && target > state.steps)));
  ui.why.textContent = idle ? blocked : '';
  ui.reset.disabled = !hasModel() || phase === 'training';
  ui.save.disabled = !hasModel() || phase === 'training';
  ui.exportRun.disabled = ui.save.disabled;
  ui.load.disabled = ['loading', 'creating', 'training', 'pausing', 'crashed'].includes(phase);
  ui.generate.disabled = !hasModel() || state.sampleRunning;
  ui.solve.disabled = !hasModel();
}
