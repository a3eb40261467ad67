// "Features": a sparse autoencoder trained in the tab on the run's model (crates/gpt/src/sae/),
// its live measures, the list of its features, each feature's card (top contexts, histogram, the
// tokens it promotes and suppresses), which features fire on a typed text, and a feature knocked
// out or steered with. The worker trains it while the model's own training is paused.
import { decimal, scientific, t } from './i18n.js';
import { on, send } from './engine.js';
import { savedNote } from './saved-note.js';
import { count, tokenLabel } from './format.js';
import { FeaturesCurve } from './features-curve.js';
import { contextItems, fillMeasures, percent, tokenList, trainingSpeed } from './feature-card.js';
import { architectureOf, showKindInputs } from './sae-kind.js';

const $ = (id) => document.getElementById(id);
const ui = {
  details: $('features'), form: $('features-form'), hook: $('features-hook'), expansion: $('features-expansion'),
  steps: $('features-steps'), train: $('features-train'), pause: $('features-pause'),
  status: $('features-status'), progress: $('features-progress'), error: $('features-error'), measures: $('features-measures'),
  browse: $('features-browse'), order: $('features-order'), list: $('features-list').tBodies[0],
  cardTitle: $('features-card-title'), cardSummary: $('features-card-summary'), contexts: $('features-contexts'),
  histogram: $('features-histogram'), promoted: $('features-promoted'), suppressed: $('features-suppressed'),
  knock: $('features-knock'), knockResult: $('features-knock-result'), strength: $('features-strength'),
  prompt: $('features-prompt'), steer: $('features-steer'), steered: $('features-steered'),
  which: $('features-which'), whichTokens: $('features-which-tokens'), open: $('features-open'),
  flipped: $('features-flipped'), read: $('features-read'),
};
const curve = new FeaturesCurve($('features-curve'));
/** Features the list shows. */
const LISTED = 40;
let card = null; // the feature whose card is open
const saved = savedNote(ui.status); // once trained, the status says when the run's next save kept it
let before = null; // the status line before a new autoencoder was asked for, until it starts or is refused

const ask = (request) => send({ type: 'features', request });
/** A loss difference: four decimals, or two figures when it is smaller than that. */
const lossChange = (x) => (Math.abs(x) >= 1e-3 || x === 0 ? decimal(x, 4) : scientific(x, 1));

/** The hook points of a model of `layers` layers, the last block's stream first. */
function hooks(layers) {
  const points = [];
  for (let layer = layers - 1; layer >= 0; layer--) {
    points.push(new Option(t('features.hook-resid', { block: layer + 1, layer }), `resid_post:${layer}`));
  }
  for (let layer = 0; layer < layers; layer++) {
    points.push(new Option(t('features.hook-mlp', { block: layer + 1, layer }), `mlp_out:${layer}`));
  }
  for (let layer = 0; layer < layers; layer++) {
    points.push(new Option(t('features.hook-transcoder', { block: layer + 1, layer }), `transcoder:${layer}`));
  }
  ui.hook.replaceChildren(...points);
}

/** Where the chosen hook's autoencoder reads, and for a transcoder where it writes. */
function chosenPoints() {
  const [kind, layer] = ui.hook.value.split(':');
  const at = Number(layer);
  if (kind === 'transcoder') return { point: { kind: 'mlp_in', layer: at }, output: { kind: 'mlp_out', layer: at } };
  return { point: { kind, layer: at }, output: null };
}

function start(event) {
  event.preventDefault();
  const config = {
    ...chosenPoints(),
    expansion: Number(ui.expansion.value),
    architecture: architectureOf(ui.form),
    dead_tokens: 200000,
  };
  ui.error.textContent = '';
  before ??= ui.status.textContent;
  send({ type: 'features', request: { do: 'start', config, rows: 64, steps: Number(ui.steps.value), learning_rate: 1e-3, seed: 1337 }, train: true });
  ui.status.textContent = t('features.reading');
}

/** The new autoencoder started: the old one's features and measures are gone with it. */
function started(data) {
  before = null;
  card = null;
  ui.browse.hidden = true;
  ui.list.replaceChildren();
  ui.measures.replaceChildren();
  ui.read.hidden = true;
  curve.reset();
  ui.pause.textContent = t('features.pause-features');
  ui.pause.disabled = false;
  progress(data);
}

function showMeasures(m) {
  const losses = t('features.losses', { clean: decimal(m.loss_clean, 3), sae: decimal(m.loss_with_sae, 3), zeroed: decimal(m.loss_zeroed, 3) });
  const tokens = count(m.tokens);
  const items = [
    [t('features.variance'), percent(m.explained_variance), t('features.variance-about')],
    [t('features.loss-added'), `+${lossChange(m.loss_added)}`, t('features.loss-added-about', { losses })],
    [t('features.loss-recovered'), percent(m.loss_recovered), t('features.loss-recovered-about', { losses })],
    ['L0', decimal(m.l0, 1), t('features.l0-about')],
    [t('features.dead'), percent(m.dead), t('features.dead-about')],
    [t('features.silent', { tokens }), percent(m.silent), t('features.silent-about', { tokens })],
    [t('features.dense'), percent(m.dense), t('features.dense-about')],
  ];
  ui.read.hidden = false;
  fillMeasures(ui.measures, items);
}

let lastAnswer = { d_sae: 1 }; // the autoencoder's last answer: its size

function progress({ answer }) {
  lastAnswer = answer;
  const { step, steps, report, measures } = answer;
  if (answer.losses) curve.reset(answer.losses); // the whole curve: a reopened autoencoder's
  else if (report) curve.add(report.losses);
  ui.progress.max = steps;
  ui.progress.value = step;
  const said = { step, steps, features: answer.d_sae, channels: answer.d_in, modelStep: answer.model_step };
  ui.status.textContent = report && step < steps
    ? t('features.progress-speed', { ...said, speed: trainingSpeed(report) })
    : t('features.progress', said);
  if (measures) showMeasures(measures);
  if (step >= steps) finished();
}

function finished() {
  saved.arm();
  ui.open.max = String(lastAnswer.d_sae - 1);
  ui.pause.disabled = true;
  ui.pause.textContent = t('features.pause-features');
  ui.browse.hidden = false;
  for (const el of [ui.which, ui.knock, ui.steer]) el.disabled = false;
  ask({ do: 'list', order: ui.order.value, top: LISTED });
  if (ui.which.value) ask({ do: 'which', text: ui.which.value });
}

function showList({ answer }) {
  ui.list.replaceChildren(...answer.list.map((f) => {
    const row = ui.list.insertRow();
    row.tabIndex = 0;
    row.setAttribute('aria-label', t('features.row', { feature: f.feature, density: percent(f.density), token: tokenLabel(f.top_token) }));
    const open = () => ask({ do: 'card', feature: f.feature });
    row.addEventListener('click', open);
    row.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), open()));
    for (const text of [String(f.feature), percent(f.density), tokenLabel(f.top_token), lossChange(f.importance)]) row.insertCell().textContent = text;
    return row;
  }));
  if (card === null && answer.list.length) ask({ do: 'card', feature: answer.list[0].feature });
}

function showCard({ answer }) {
  const { summary: s, contexts, histogram, promoted, suppressed } = answer.card;
  card = s.feature;
  ui.cardTitle.textContent = t('features.card-title', { feature: s.feature });
  ui.cardSummary.textContent = t('features.card-summary', { density: percent(s.density), max: decimal(s.max, 2), change: lossChange(s.importance) });
  ui.contexts.replaceChildren(...contextItems(contexts, s.max));
  const most = Math.max(1, ...histogram);
  ui.histogram.setAttribute('aria-label', t('features.histogram', { feature: s.feature, bins: histogram.length, max: decimal(s.max, 2), counts: histogram.join(', ') }));
  ui.histogram.replaceChildren(...histogram.map((n) => {
    const bar = document.createElement('span');
    bar.style.height = `${(100 * n) / most}%`;
    return bar;
  }));
  tokenList(ui.promoted, promoted);
  tokenList(ui.suppressed, suppressed);
  ui.knockResult.textContent = '';
  ui.flipped.replaceChildren();
  ui.steered.replaceChildren();
}

function showKnockOut({ answer }) {
  const k = answer.knock_out;
  const said = { feature: k.feature, loss: decimal(k.loss, 4), without: decimal(k.loss_without, 4), right: k.right, rightWithout: k.right_without, rows: k.rows };
  ui.knockResult.textContent = k.flipped.length || k.right !== k.right_without ? t('features.knock-flipped', said) : t('features.knock', said);
  ui.flipped.replaceChildren(...k.flipped.map(([problem, right]) => {
    const li = document.createElement('li');
    li.textContent = t(right ? 'features.now-right' : 'features.now-wrong', { problem: problem.replace(/\n/g, '\u21b5') });
    return li;
  }));
}

function showSteered({ answer }) {
  const s = answer.steered;
  const rows = [[t('features.without-it'), s.plain], [t('features.with-feature', { feature: s.feature, strength: s.strength }), s.steered]];
  ui.steered.replaceChildren(...rows.flatMap(([term, text]) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.className = 'sample-text';
    dd.textContent = text;
    return [dt, dd];
  }));
}

function showWhich({ answer }) {
  ui.whichTokens.replaceChildren(...answer.which.map((fired) => {
    const li = document.createElement('li');
    const token = document.createElement('span');
    token.className = 'token';
    token.textContent = tokenLabel(fired.token);
    const list = fired.features.slice(0, 5).map(([j, a]) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = `${j} (${decimal(a, 2)})`;
      b.setAttribute('aria-label', t('features.open-active', { feature: j, activation: decimal(a, 2) }));
      b.addEventListener('click', () => ask({ do: 'card', feature: j }));
      return b;
    });
    li.append(token, ...list);
    return li;
  }));
}

const shown = { start: started, train: progress, list: showList, card: showCard, knock_out: showKnockOut, steer: showSteered, which: showWhich };

/** A new model: its hook points; an autoencoder of the old one is gone. */
function newModel({ settings }) {
  before = null;
  hooks(settings.model.n_layer);
  ui.train.disabled = false;
  ui.browse.hidden = true;
  ui.measures.replaceChildren();
  ui.read.hidden = true;
  curve.reset();
  for (const el of [ui.which, ui.knock, ui.steer, ui.pause]) el.disabled = true;
  ui.progress.value = 0;
  ui.status.textContent = t('features.pause-first');
}

export function initFeatures() {
  ui.form.addEventListener('submit', start);
  ui.pause.addEventListener('click', () => {
    if (ui.pause.textContent === t('features.resume')) {
      send({ type: 'features', request: { do: 'measure' }, train: true });
      ui.pause.textContent = t('features.pause-features');
    } else {
      send({ type: 'features-pause' });
      ui.pause.disabled = true;
    }
  });
  showKindInputs(ui.form);
  ui.order.addEventListener('change', () => ask({ do: 'list', order: ui.order.value, top: LISTED }));
  ui.open.addEventListener('change', () => ui.open.value !== '' && ask({ do: 'card', feature: Number(ui.open.value) }));
  ui.knock.addEventListener('click', () => card !== null && ask({ do: 'knock_out', feature: card }));
  ui.steer.addEventListener('click', () => {
    if (card === null) return;
    const sample = { prompt: ui.prompt.value, temperature: 0.8, top_k: 0, seed: 1337, max_new_tokens: 120 };
    ask({ do: 'steer', feature: card, strength: Number(ui.strength.value), sample });
  });
  let timer = 0;
  ui.which.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => (ui.which.value ? ask({ do: 'which', text: ui.which.value }) : ui.whichTokens.replaceChildren()), 250);
  });
  on('features', (data) => shown[data.asked]?.(data));
  on('error:features', ({ message }) => {
    ui.error.textContent = message;
    if (before !== null) {
      // A new autoencoder refused: the one there was stays, and so does what the line said of it.
      if (ui.status.textContent === t('features.reading')) ui.status.textContent = before;
      before = null;
    } else if (ui.pause.textContent === t('features.pause-features')) {
      ui.pause.disabled = true; // its training stopped
    }
  });
  on('features-paused', ({ answer }) => {
    lastAnswer = answer;
    ui.status.textContent = t('features.paused', { step: answer.step, steps: answer.steps });
    if (answer.measures) showMeasures(answer.measures);
    if (answer.losses) curve.reset(answer.losses);
    finished();
    ui.pause.textContent = t('features.resume');
    ui.pause.disabled = false;
  });
  on('created', newModel);
  on('loaded', newModel);
}
