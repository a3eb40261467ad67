// What a lesson's step waits for (`@wait step>=300 within=60`), judged from the run's own
// messages: where the run stands (its step, last evaluation and milestones) and what has
// happened since the step began (a run finished, a sample drawn, the walk shown). The clock
// counts only time spent training, the time a lesson's `within` promises.
import { decimal, t } from '../i18n.js';
import { on } from '../engine.js';
import { state } from '../phase.js';
import { isOpen, target } from './targets.js';

const FRESH = { step: 0, loss: null, accuracy: null, induction: null, memorised: null, generalised: null, turn: null };
/** Where the current run stands. */
const run = { ...FRESH };
/** How often each event has happened: a step waits for one after it began. */
const happened = { finished: 0, sampled: 0, diverged: 0, walked: 0, toy: 0, autoencoder: 0, circuit: 0, graph: 0, llc: 0 };
let training = 0; // seconds spent creating or training a model, while a lesson is open
let tick = 0;
let changed = () => {};

function fromHistory(evaluation, milestones = {}) {
  if (evaluation) Object.assign(run, { loss: evaluation.val_loss, accuracy: evaluation.val_accuracy ?? null });
  Object.assign(run, { induction: milestones.induction ?? null, memorised: milestones.memorised ?? null, generalised: milestones.generalised ?? null });
  run.turn = milestones.llc?.turns?.[0]?.step ?? null; // the learning coefficient's first turn
}

/** Listens to the run; `onChange()` is called whenever a wait may have been met. */
export function initWaits(onChange) {
  changed = onChange;
  const count = (what) => () => { happened[what]++; changed(); };
  on('created', () => { Object.assign(run, FRESH); changed(); });
  on('loaded', ({ step, history, milestones }) => {
    Object.assign(run, FRESH, { step });
    fromHistory(history?.evals?.at(-1), milestones);
    changed();
  });
  on('progress', ({ report }) => { run.step = report.step; changed(); });
  on('eval', ({ evaluation, milestones }) => { fromHistory(evaluation, milestones); changed(); });
  on('finished', count('finished'));
  on('sample-done', count('sampled'));
  on('solved', count('sampled'));
  on('walk', count('walked'));
  on('error:train', ({ message }) => /diverged/.test(message) && count('diverged')());
  document.addEventListener('toggle', () => changed(), true); // a section opened (toggle does not bubble)
  // A toy job done (superposition-panel.js, toy-autoencoder-panel.js): its kind, `toy` or `autoencoder`.
  document.addEventListener('toy-trained', ({ detail }) => count(detail)());
  document.addEventListener('circuit-found', count('circuit')); // the circuit view's find done
  document.addEventListener('graph-traced', count('graph')); // an attribution graph drawn
  document.addEventListener('llc-estimated', count('llc')); // the LLC view's estimate done
}

/** Starts the training clock (while a lesson is open). */
export function startClock() {
  if (tick) return;
  let last = performance.now();
  tick = setInterval(() => {
    const now = performance.now();
    if (['creating', 'training'].includes(state.phase)) training += (now - last) / 1000;
    last = now;
    changed();
  }, 500);
}

export function stopClock() {
  clearInterval(tick);
  tick = 0;
}

/** Where a step starts from: the counts of events and the training clock. */
export const mark = () => ({ happened: { ...happened }, seconds: training });

/** Seconds of training since `from` (a mark). */
export const trainedSince = (from) => training - from.seconds;

/** Whether `wait` is met, for a step that began at `from` (a mark). */
export function isMet(wait, from) {
  const { what, op, value } = wait;
  if (what in happened) return happened[what] > from.happened[what];
  if (what === 'open') return isOpen(value);
  if (op === null) return run[what] !== null;
  const now = run[what];
  return now !== null && (op === '>=' ? now >= value : now <= value);
}

const percent = (x) => `${Math.round(x * 1000) / 10}%`;

/** What `wait` waits for, in a learner's words, with where the run stands now. */
export function describeWait({ what, value }) {
  switch (what) {
    case 'step': return t('lesson.wait-step', { step: value, now: run.step });
    case 'accuracy': return run.accuracy === null ? t('lesson.wait-accuracy', { value: percent(value) })
      : t('lesson.wait-accuracy-now', { value: percent(value), now: percent(run.accuracy) });
    case 'loss': return run.loss === null ? t('lesson.wait-loss', { value }) : t('lesson.wait-loss-now', { value, now: decimal(run.loss, 3) });
    case 'induction': return t('lesson.wait-induction');
    case 'memorised': return t('lesson.wait-memorised');
    case 'generalised': return t('lesson.wait-generalised');
    case 'turn': return t('lesson.wait-turn');
    case 'finished': return t('lesson.wait-finished');
    case 'sampled': return t('lesson.wait-sampled');
    case 'diverged': return t('lesson.wait-diverged');
    case 'walked': return t('lesson.wait-walked');
    case 'toy': return t('lesson.wait-toy');
    case 'autoencoder': return t('lesson.wait-autoencoder');
    case 'circuit': return t('lesson.wait-circuit');
    case 'graph': return t('lesson.wait-graph');
    case 'llc': return t('lesson.wait-llc');
    default: return t('lesson.wait-opened', { what: target(value)?.what ?? value });
  }
}
