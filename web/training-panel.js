// The training panel: Train, Pause, Resume and Reset, the progress line and the loss chart.
import { decimal, scientific, t } from './i18n.js';
import { readNumber } from './config-form.js';
import { corpusChoice, corpusSnippet, showMerges, taskChoice, trainingText } from './data-panel.js';
import { on, send } from './engine.js';
import { clauses, count, duration } from './format.js';
import { LossChart } from './loss-chart.js';
import { BUDGET, presetName, showFieldError, validate } from './model-panel.js';
import { attentionText, clearAttention, setAttentionSource, setAttentionText } from './attention-panel.js';
import { showSamplingFor, suggestProblem } from './problems-panel.js';
import { clearSamples } from './sample-panel.js';
import { clearInside } from './inside-panel.js';
import { clearWalk } from './walk-panel.js';
import { setPhase, showError, state, whyBlocked } from './phase.js';
import { showTextProblem } from './text-fit.js';
import { taskExample } from './task-panel.js';

const $ = (id) => document.getElementById(id);
const ui = {
  train: $('train'), pause: $('pause'), resume: $('resume'), reset: $('reset'),
  progress: $('progress'), stats: $('stats'), iterations: $('config').elements.max_iters,
};
const chart = new LossChart($('loss-chart'), $('loss-tooltip'));

/** Marks the core's milestones on the loss chart: an induction head's onset, a circuit's forming, a task's accuracy marks, the LLC's curve and turns. */
function showMilestones({ induction, circuit, memorised, generalised, llc }) {
  chart.setMarker('induction', induction && { step: induction.step, label: t('train.marker-induction', { layer: induction.layer + 1, head: induction.head + 1 }) });
  chart.setMarker('circuit', circuit != null && { step: circuit, label: t('train.marker-circuit') });
  chart.setMarker('memorised', memorised != null && { step: memorised, label: t('train.marker-memorised') });
  chart.setMarker('generalised', generalised != null && { step: generalised, label: t('train.marker-generalised') });
  chart.setLlc(llc);
}

/** Draws saved runs on the loss chart beside this one. */
export function showOverlays(runs) {
  chart.setOverlays(runs);
}

/** The loss of a uniform guess for the current model. */
export const uniformLoss = () => chart.uniform ?? 1;

/** The last report the stats line shows, with the memory and the worker search beside it. */
let shown = null;

/** Shows a run from its start: a new run has no history yet, a loaded one brings its own. */
export function showRun({ uniformLoss, vocabSize, total, step = 0, history = { losses: [], evals: [] }, milestones = {} }) {
  chart.reset({ uniformLoss, vocabSize, total });
  chart.addLosses(history.losses, history.seconds);
  history.evals.forEach((e) => chart.addEvaluation(e));
  showMilestones(milestones);
  state.steps = step;
  ui.progress.max = total;
  ui.progress.value = step;
  ui.stats.textContent = ''; // the last run's figures, until this one reports
  shown = null;
}

/** Shows where a loaded run stands. */
export function showLoadedProgress(step, total) {
  ui.stats.textContent = t('train.loaded-progress', { step: count(step), total: count(total) });
}

/** Whether Train or Resume may act now; if not, it says why (a click is never ignored in silence). */
function mayAct() {
  const why = whyBlocked();
  showError(why);
  return !why;
}

function startTraining() {
  if (state.steps > 0 && !confirm(t('train.confirm-start-over', { steps: state.steps }))) return;
  const settings = validate();
  if (!mayAct()) return;
  const task = taskChoice();
  const bpe = !task && settings.tokenizer === 'bpe';
  setPhase('creating', bpe ? t('train.learning-bpe') : t('train.building'));
  // A task's attention is read on one of its problems; a text's on a piece of it.
  if (task) setAttentionText(taskExample());
  else if (!attentionText() || state.task) setAttentionText(corpusSnippet(settings.model.block_size));
  state.task = task;
  const corpus = corpusChoice();
  showTextProblem(null);
  const name = task ? [task, presetName()].filter((n, i, all) => all.indexOf(n) === i).join('-')
    : `${corpus.id === 'own' ? 'text' : corpus.id}-${presetName()}`;
  send({
    type: 'create', settings, text: trainingText(), budget: BUDGET, attentionText: attentionText(),
    name, corpus: task ? `${corpus.title} (${taskSettings(settings.task)})` : corpus.title, corpusId: corpus.id,
  });
}

/** A task's settings in a few words, for the saved runs list. */
function taskSettings(task) {
  const fields = { length: () => t('train.task-length'), symbols: () => t('train.task-symbols'), digits: () => t('train.task-digits'), p: () => t('train.task-p') };
  const used = Object.entries(fields).filter(([name]) => task[name] != null)
    .map(([name, label]) => t('train.task-field', { field: label(), value: task[name] }));
  return [...used, t('train.task-fraction', { fraction: task.train_fraction })].join(', ');
}

/** Goes on training the current model with the form's settings: the recipe may have changed. */
function resumeTraining() {
  const settings = validate();
  if (!mayAct()) return;
  chart.setTotal(readNumber(ui.iterations).value ?? 0);
  setPhase('training', t('train.training'));
  send({ type: 'train', settings, budget: BUDGET });
}

/** A setting that changes the parameters or tokens (or the seed) cannot apply to a model that exists. */
const NEEDS_NEW_MODEL = 'settings.needs_new_model';

/** Sets the page up for a run's task (`task`: its TaskDetails, or null for a text). */
export function showTaskRun(task) {
  state.task = task?.config.name ?? null;
  showSamplingFor(state.task);
  setAttentionSource(state.task, task?.held_out_example);
  if (task) suggestProblem(task.held_out_example);
}

function resetModel() {
  if (state.steps > 0 && !confirm(t('train.confirm-discard', { steps: state.steps }))) return;
  send({ type: 'reset' });
  showTaskRun(null);
  state.sampleRunning = false;
  showRun({ uniformLoss: null, vocabSize: 0, total: 1 });
  clearAttention();
  clearSamples();
  clearInside();
  clearWalk();
  setPhase('idle', t('train.ready'));
}

function showProgress({ report, memory, search }) {
  state.steps = report.step;
  chart.addLosses(report.losses, report.seconds);
  ui.progress.max = report.max_iters;
  ui.progress.value = report.step;
  shown = { report, memory, search };
  showStats();
}

/** The stats line, from the last report. */
function showStats() {
  const { report, memory, search } = shown;
  const each = report.workers > 1 ? [t('train.each', { rate: count(Math.round(report.tokens_per_s_per_worker)) })] : [];
  const notes = [...each, ...(search ? [automaticWorkers(search)] : [])];
  const rate = t('train.speed', { n: report.workers, rate: count(Math.round(report.tokens_per_s)) });
  const speed = notes.length ? t('train.speed-notes', { rate, notes: clauses(notes) }) : rate;
  // What the views' measurements at evaluations cost, beside the training's own time.
  const records = 100 * report.records_share;
  ui.stats.textContent = t('train.stats', {
    step: count(report.step), total: count(report.max_iters), loss: decimal(report.losses.at(-1), 3), speed, lr: scientific(report.lr, 2),
    elapsed: duration(report.elapsed_s), eta: duration(report.eta_s), records: decimal(records, 1), memory: decimal(memory / 2 ** 20, 1),
  });
}

/** What the automatic worker count has found: "automatic: trying 4", or the fastest and its rivals. */
function automaticWorkers({ settled, timed }) {
  const tried = timed.map((t) => `${t.workers}: ${Math.round(t.msPerStep)} ms`).join(', ');
  if (!settled) return tried ? t('train.workers-trying-so-far', { tried }) : t('train.workers-trying');
  return timed.length ? t('train.workers-fastest', { tried }) : t('train.workers-one-core');
}

export function initTraining() {
  const axis = $('chart-axis');
  axis.addEventListener('change', () => chart.setAxis(axis.value));
  ui.train.addEventListener('click', startTraining);
  ui.pause.addEventListener('click', () => { setPhase('pausing'); send({ type: 'pause' }); });
  ui.resume.addEventListener('click', resumeTraining);
  ui.reset.addEventListener('click', resetModel);
  on('ready', () => {
    if (state.phase === 'crashed') return;
    setPhase('idle', t('train.ready-first'));
    validate();
  });
  on('created', ({ merges, uniformLoss, vocabSize, total, task }) => {
    showMerges(merges);
    showRun({ uniformLoss, vocabSize, total });
    showTaskRun(task);
    setPhase('training', t('train.training'));
    send({ type: 'train' });
  });
  on('progress', showProgress);
  on('eval', ({ evaluation, milestones, recordsShare }) => {
    chart.addEvaluation(evaluation);
    showMilestones(milestones);
    if (shown) {
      shown.report = { ...shown.report, records_share: recordsShare };
      showStats();
    }
  });
  on('paused', () => setPhase('paused', t('train.paused', { step: count(state.steps) })));
  on('finished', () => setPhase('finished', t('train.finished', { steps: count(state.steps) })));
  on('error:train', (error) => {
    if (error.code === NEEDS_NEW_MODEL) {
      setPhase('paused', t('train.paused-short', { step: count(state.steps) }));
      const fresh = t('train.confirm-new-model', { reason: error.message, steps: count(state.steps) });
      if (confirm(fresh)) {
        state.steps = 0; // it is saved: no second question
        startTraining();
      } else {
        showFieldError(error);
      }
      return;
    }
    if (!(error.field && showFieldError(error))) showError(error.message);
    setPhase('paused', t('train.stopped', { step: count(state.steps) }), true);
  });
  on('error:create', (error) => {
    if (!(error.field && showFieldError(error))) showError(error.message);
    setPhase(state.steps > 0 ? 'paused' : 'idle', t('train.ready'));
  });
  on('crashed', ({ message }) => setPhase('crashed', t('train.engine-stopped', { reason: message }), true));
}
