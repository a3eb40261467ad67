// "Features": a sparse autoencoder trained in the tab on the run's model (crates/gpt/src/sae/),
// its live measures, the list of its features, each feature's card (top contexts, histogram, the
// tokens it promotes and suppresses), which features fire on a typed text, and a feature knocked
// out or steered with. The worker trains it while the model's own training is paused.
import { on, send } from './engine.js';
import { savedNote } from './saved-note.js';
import { count, tokenLabel } from './format.js';
import { FeaturesCurve } from './features-curve.js';
import { contextItems, fillMeasures, tokenList } from './feature-card.js';

const $ = (id) => document.getElementById(id);
const ui = {
  details: $('features'), form: $('features-form'), hook: $('features-hook'), expansion: $('features-expansion'),
  k: $('features-k'), steps: $('features-steps'), train: $('features-train'), pause: $('features-pause'),
  status: $('features-status'), progress: $('features-progress'), error: $('features-error'), measures: $('features-measures'),
  browse: $('features-browse'), order: $('features-order'), list: $('features-list').tBodies[0],
  cardTitle: $('features-card-title'), cardSummary: $('features-card-summary'), contexts: $('features-contexts'),
  histogram: $('features-histogram'), promoted: $('features-promoted'), suppressed: $('features-suppressed'),
  knock: $('features-knock'), knockResult: $('features-knock-result'), strength: $('features-strength'),
  prompt: $('features-prompt'), steer: $('features-steer'), steered: $('features-steered'),
  which: $('features-which'), whichTokens: $('features-which-tokens'), open: $('features-open'),
  architecture: $('features-architecture'), l1: $('features-l1'), flipped: $('features-flipped'), read: $('features-read'),
};
const curve = new FeaturesCurve($('features-curve'));
/** Features the list shows. */
const LISTED = 40;
let card = null; // the feature whose card is open
const saved = savedNote(ui.status); // once trained, the status says when the run's next save kept it
let before = null; // the status line before a new autoencoder was asked for, until it starts or is refused
const READING = 'Reading the model\u2019s activations\u2026';

const ask = (request) => send({ type: 'features', request });
const percent = (x) => `${(100 * x).toFixed(1)}%`;
/** A loss difference: four decimals, or two figures when it is smaller than that. */
const lossChange = (x) => (Math.abs(x) >= 1e-3 || x === 0 ? x.toFixed(4) : x.toExponential(1));

/** The hook points of a model of `layers` layers, the last block's stream first. */
function hooks(layers) {
  const points = [];
  for (let layer = layers - 1; layer >= 0; layer--) {
    points.push(new Option(`the stream leaving block ${layer + 1} (blocks.${layer}.hook_resid_post)`, `resid_post:${layer}`));
  }
  for (let layer = 0; layer < layers; layer++) {
    points.push(new Option(`what MLP ${layer + 1} adds (blocks.${layer}.hook_mlp_out)`, `mlp_out:${layer}`));
  }
  for (let layer = 0; layer < layers; layer++) {
    points.push(new Option(`a transcoder for MLP ${layer + 1}: what it reads to what it adds (blocks.${layer}.ln2.hook_normalized → hook_mlp_out)`, `transcoder:${layer}`));
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
    architecture: ui.architecture.value === 'relu'
      ? { kind: 'relu', l1_coefficient: Number(ui.l1.value) }
      : { kind: 'top_k', k: Number(ui.k.value), aux_coefficient: 1 },
    dead_tokens: 200000,
  };
  ui.error.textContent = '';
  before ??= ui.status.textContent;
  send({ type: 'features', request: { do: 'start', config, rows: 64, steps: Number(ui.steps.value), learning_rate: 1e-3, seed: 1337 }, train: true });
  ui.status.textContent = READING;
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
  ui.pause.textContent = 'Pause features';
  ui.pause.disabled = false;
  progress(data);
}

function showMeasures(m) {
  const losses = `the model\u2019s loss: ${m.loss_clean.toFixed(3)} as it is, ${m.loss_with_sae.toFixed(3)} with the reconstruction, ${m.loss_zeroed.toFixed(3)} zeroed`;
  const items = [
    ['Variance explained', percent(m.explained_variance), 'the share of the activations\u2019 variance its reconstruction keeps'],
    ['Loss added', `+${lossChange(m.loss_added)}`, `what the reconstruction adds to ${losses.replace('the model\u2019s loss: ', 'the model\u2019s loss (')}); 0 is perfect`],
    ['Loss recovered', percent(m.loss_recovered), `${losses}: the share of what zeroing costs that the reconstruction keeps`],
    ['L0', m.l0.toFixed(1), 'features firing per token'],
    ['Dead', percent(m.dead), 'features silent for the last 200,000 training tokens'],
    [`Silent in ${count(m.tokens)} tokens`, percent(m.silent), `features that fired on none of the ${count(m.tokens)} held-out tokens measured (more tokens, fewer silent)`],
    ['Dense', percent(m.dense), 'features firing on more than a tenth of the tokens'],
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
  const workers = report && `${report.workers} worker${report.workers > 1 ? 's' : ''}`;
  const speed = report ? `, ${Math.round(report.tokens_per_s).toLocaleString()} tokens/s on ${workers}, ${Math.ceil(report.eta_s)} s left` : '';
  ui.status.textContent = `Step ${step} of ${steps}${step < steps ? speed : ''}: ${answer.d_sae} features on ${answer.d_in} channels, reading the model at step ${answer.model_step}.`;
  if (measures) showMeasures(measures);
  if (step >= steps) finished();
}

function finished() {
  saved.arm();
  ui.open.max = String(lastAnswer.d_sae - 1);
  ui.pause.disabled = true;
  ui.pause.textContent = 'Pause features';
  ui.browse.hidden = false;
  for (const el of [ui.which, ui.knock, ui.steer]) el.disabled = false;
  ask({ do: 'list', order: ui.order.value, top: LISTED });
  if (ui.which.value) ask({ do: 'which', text: ui.which.value });
}

function showList({ answer }) {
  ui.list.replaceChildren(...answer.list.map((f) => {
    const row = ui.list.insertRow();
    row.tabIndex = 0;
    row.setAttribute('aria-label', `feature ${f.feature}: fires on ${percent(f.density)} of tokens, strongest on ${tokenLabel(f.top_token)}`);
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
  ui.cardTitle.textContent = `Feature ${s.feature}`;
  ui.cardSummary.textContent = `Fires on ${percent(s.density)} of held-out tokens, at most ${s.max.toFixed(2)}; `
    + `the loss would change by about ${lossChange(s.importance)} without it (attribution).`;
  ui.contexts.replaceChildren(...contextItems(contexts, s.max));
  const most = Math.max(1, ...histogram);
  ui.histogram.setAttribute('aria-label', `Histogram of feature ${s.feature}'s activations in ${histogram.length} bins from 0 to ${s.max.toFixed(2)}: ${histogram.join(', ')}`);
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
  let text = `Without feature ${k.feature}, the held-out loss goes from ${k.loss.toFixed(4)} to ${k.loss_without.toFixed(4)}`;
  if (k.flipped.length || k.right !== k.right_without) text += `, and ${k.right} \u2192 ${k.right_without} of ${k.rows} problems are right`;
  ui.knockResult.textContent = `${text}.`;
  ui.flipped.replaceChildren(...k.flipped.map(([problem, right]) => {
    const li = document.createElement('li');
    li.textContent = `${problem.replace(/\n/g, '\u21b5')} now ${right ? 'right' : 'wrong'}`;
    return li;
  }));
}

function showSteered({ answer }) {
  const s = answer.steered;
  const rows = [['Without it', s.plain], [`With feature ${s.feature} at ${s.strength}`, s.steered]];
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
  ui.whichTokens.replaceChildren(...answer.which.map((t) => {
    const li = document.createElement('li');
    const token = document.createElement('span');
    token.className = 'token';
    token.textContent = tokenLabel(t.token);
    const list = t.features.slice(0, 5).map(([j, a]) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = `${j} (${a.toFixed(2)})`;
      b.setAttribute('aria-label', `open feature ${j}, active at ${a.toFixed(2)}`);
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
  ui.status.textContent = 'Pause the model\u2019s training, then train features on it as it is.';
}

export function initFeatures() {
  ui.form.addEventListener('submit', start);
  ui.pause.addEventListener('click', () => {
    if (ui.pause.textContent === 'Resume features') {
      send({ type: 'features', request: { do: 'measure' }, train: true });
      ui.pause.textContent = 'Pause features';
    } else {
      send({ type: 'features-pause' });
      ui.pause.disabled = true;
    }
  });
  ui.architecture.addEventListener('change', () => {
    const relu = ui.architecture.value === 'relu';
    ui.form.querySelector('.features-topk').hidden = relu;
    ui.form.querySelector('.features-relu').hidden = !relu;
  });
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
      if (ui.status.textContent === READING) ui.status.textContent = before;
      before = null;
    } else if (ui.pause.textContent === 'Pause features') {
      ui.pause.disabled = true; // its training stopped
    }
  });
  on('features-paused', ({ answer }) => {
    lastAnswer = answer;
    ui.status.textContent = `Paused at step ${answer.step} of ${answer.steps}: its features so far are below.`;
    if (answer.measures) showMeasures(answer.measures);
    if (answer.losses) curve.reset(answer.losses);
    finished();
    ui.pause.textContent = 'Resume features';
    ui.pause.disabled = false;
  });
  on('created', newModel);
  on('loaded', newModel);
}
