// "Attribution graph": a transcoder for every MLP of the run's model, trained in the tab (shared
// among the workers, paused and resumed like the autoencoder), their measures, and the graph
// behind one prompt's next token (graph-view.js): which features at which positions fed which, on
// to the output. Features picked in it show their card, can be grouped by hand, and knocked out or
// scaled, the graph's predicted effect beside the real one; a head's attention between two
// positions is explained by graph-why.js. The graph downloads as the file Neuronpedia's graph
// viewer opens.
import { on, send } from './engine.js';
import { savedNote } from './saved-note.js';
import { tokenLabel } from './format.js';
import { contextItems, fillMeasures, tokenList } from './feature-card.js';
import { GraphView } from './graph-view.js';
import { initWhy, whyFor } from './graph-why.js';
import { saveFile } from './save-file.js';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('graph-train-form'), expansion: $('graph-expansion'), k: $('graph-k'), steps: $('graph-steps'), skip: $('graph-skip'),
  train: $('graph-train'), pause: $('graph-pause'), status: $('graph-status'), progress: $('graph-progress'),
  error: $('graph-error'), measures: $('graph-measures'), traceForm: $('graph-trace-form'), prompt: $('graph-prompt'),
  nodeThreshold: $('graph-node-threshold'), edgeThreshold: $('graph-edge-threshold'), trace: $('graph-trace'),
  download: $('graph-download'), summary: $('graph-summary'), tools: $('graph-tools'), group: $('graph-group'),
  ungroup: $('graph-ungroup'), knock: $('graph-knock'), factor: $('graph-factor'), steer: $('graph-steer'),
  effects: $('graph-effects'), card: $('graph-card'), cardTitle: $('graph-card-title'), cardSummary: $('graph-card-summary'),
  contexts: $('graph-contexts'), promoted: $('graph-promoted'), suppressed: $('graph-suppressed'),
};
/** Rows a step: as good as 64 for nano-cpu's transcoders, in half the time. */
const ROWS = 32;
const READING = 'Reading the model\u2019s MLPs\u2026';
const view = new GraphView($('graph-svg'), picked);
let traced = null; // the prompt of the graph shown
let file = null; // the graph shown, as Neuronpedia's file
const saved = savedNote(ui.status); // once trained, the status says when the run's next save kept it

const ask = (request) => send({ type: 'transcoders', request });
const percent = (x) => `${(100 * x).toFixed(1)}%`;

function start(event) {
  event.preventDefault();
  const config = {
    point: { kind: 'mlp_in', layer: 0 }, output: { kind: 'mlp_out', layer: 0 }, expansion: Number(ui.expansion.value),
    architecture: { kind: 'top_k', k: Number(ui.k.value), aux_coefficient: 1 }, dead_tokens: 200000, skip: ui.skip.checked,
  };
  ui.error.textContent = '';
  send({ type: 'transcoders', request: { do: 'start', config, rows: ROWS, steps: Number(ui.steps.value), learning_rate: 1e-3, seed: 1337 }, train: true });
  ui.status.textContent = READING;
}

function showMeasures(m) {
  const items = [
    ['Top-1 agreement', percent(m.top1_agreement), `of ${m.tokens} held-out positions, where the model with every MLP replaced by its transcoder (no errors) predicts the model\u2019s most likely token`],
    ['KL', m.kl.toFixed(3), 'the mean KL divergence of the replaced model\u2019s next-token distribution from the model\u2019s'],
    ['Loss', `${m.loss_clean.toFixed(3)} \u2192 ${m.loss_replaced.toFixed(3)}`, 'the held-out loss of the model, then of the replaced model'],
    ...m.layers.map((l, i) => [`MLP ${i + 1} error`, l.normalized_mse.toFixed(3), `its normalised MSE (0 is perfect); L0 ${l.l0.toFixed(1)} features per token, ${percent(l.dead)} dead`]),
  ];
  fillMeasures(ui.measures, items);
}

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function progress({ answer, memory }) {
  const { step, steps, report, measures } = answer;
  ui.progress.max = steps;
  ui.progress.value = step;
  const speed = report ? `, ${Math.round(report.tokens_per_s).toLocaleString()} tokens/s on ${report.workers} worker${report.workers > 1 ? 's' : ''}, ${Math.ceil(report.eta_s)} s left` : '';
  const held = memory ? ` The workers hold ${mib(memory)}.` : '';
  const skip = answer.copy?.transcoders?.skip;
  if (skip !== undefined) ui.skip.checked = skip; // a restored run's transcoders say which kind they are
  const kind = skip ? ' and a skip connection' : '';
  ui.status.textContent = `Step ${step} of ${steps}${step < steps ? speed : ''}: ${answer.d_sae} features${kind} for each MLP, reading the model at step ${answer.model_step}.${held}`;
  if (measures) showMeasures(measures);
  ui.pause.disabled = step >= steps;
  if (step >= steps) ready();
}

/** The transcoders can trace prompts, and are kept with the run's next save. */
function ready() {
  saved.arm();
  ui.trace.disabled = false;
  ui.pause.textContent = 'Pause transcoders';
}

function trace(event) {
  event?.preventDefault();
  if (!ui.prompt.value) return void (ui.error.textContent = 'Type a prompt to trace: the graph explains its next token.');
  ui.error.textContent = '';
  ui.summary.textContent = 'Tracing\u2026';
  traced = ui.prompt.value;
  ask({ do: 'graph', prompt: traced, node_threshold: Number(ui.nodeThreshold.value), edge_threshold: Number(ui.edgeThreshold.value) });
}

/** A logit node as the summary names it: its token and probability (its `clerp` is `Output "x" (p=0.25)`). */
function logitText(n) {
  const [, token, p] = n.clerp.match(/^Output "(.*)" \(p=([\d.]+)\)$/s) ?? [null, n.clerp, '?'];
  return `${JSON.stringify(tokenLabel(token))} (${p})`;
}

function showGraph({ answer, memory }) {
  const { graph } = answer;
  file = graph.file;
  const kept = file.nodes.filter((n) => n.feature_type === 'cross layer transcoder').length;
  const next = file.nodes.filter((n) => n.feature_type === 'logit').map(logitText).join(', ');
  ui.summary.textContent = `${graph.features} features fire on ${JSON.stringify(traced)}; pruned to ${kept} and ${file.links.length} edges `
    + `(${(graph.bytes / 2 ** 20).toFixed(1)} MB of direct effects; the workers hold ${mib(memory)}). Its features explain ${percent(graph.scores.completeness)} of what reaches the output `
    + `(completeness; replacement score ${percent(graph.scores.replacement)}). It explains the next token ${next}. `
    + (kept ? 'Pick features to read, group or test them.' : 'No feature holds enough of the influence to be kept: raise \u201cKeep nodes to\u201d toward 1 to see them.');
  view.show(file);
  whyFor(traced, file.metadata.prompt_tokens);
  ui.download.disabled = false;
  ui.tools.hidden = false;
  ui.effects.replaceChildren();
  picked(null);
}

/** A feature picked in the graph: its card; the tools follow what is picked. */
function picked(node) {
  const count = view.pickedFeatures().length;
  ui.group.disabled = count < 2;
  ui.knock.disabled = ui.steer.disabled = count === 0;
  ui.ungroup.disabled = view.groups.length === 0;
  if (node) ask({ do: 'card', layer: Number(node.layer), feature: Number(node.node_id.split('_')[1]) });
}

function showCard({ answer }) {
  const { summary: s, contexts, promoted, suppressed } = answer.card;
  ui.card.hidden = false;
  ui.cardTitle.textContent = `Feature ${s.feature}`;
  ui.cardSummary.textContent = `Fires on ${percent(s.density)} of held-out tokens, at most ${s.max.toFixed(2)}, most strongly on ${JSON.stringify(tokenLabel(s.top_token))}.`;
  ui.contexts.replaceChildren(...contextItems(contexts, s.max));
  tokenList(ui.promoted, promoted);
  tokenList(ui.suppressed, suppressed);
}

function intervene(factor) {
  ask({ do: 'intervene', prompt: traced, features: view.pickedFeatures(), factor });
}

function showEffects({ answer }) {
  const head = document.createElement('tr');
  for (const text of ['Next token', 'Predicted by the graph', 'Real', 'Probability after']) head.append(Object.assign(document.createElement('th'), { textContent: text, scope: 'col' }));
  const rows = answer.effects.map((e) => {
    const tr = document.createElement('tr');
    for (const text of [tokenLabel(e.token), e.predicted.toFixed(3), e.real.toFixed(3), e.probability.toFixed(3)]) tr.insertCell().textContent = text;
    return tr;
  });
  ui.effects.replaceChildren(Object.assign(document.createElement('caption'), { textContent: 'Each explained logit\u2019s change (less the mean logit\u2019s)' }), head, ...rows);
}

const shown = { start: progress, train: progress, measure: progress, graph: showGraph, card: showCard, intervene: showEffects };

/** A new model: transcoders of the old one are gone. */
function newModel() {
  ui.train.disabled = false;
  for (const el of [ui.trace, ui.pause, ui.download]) el.disabled = true;
  ui.tools.hidden = true;
  ui.card.hidden = true;
  ui.measures.replaceChildren();
  ui.effects.replaceChildren();
  ui.progress.value = 0;
  ui.summary.textContent = '';
  view.show(null);
  ui.status.textContent = 'Pause the model\u2019s training, then train a transcoder for every MLP on it as it is.';
}

export function initGraph() {
  initWhy();
  ui.form.addEventListener('submit', start);
  ui.traceForm.addEventListener('submit', trace);
  ui.pause.addEventListener('click', () => {
    if (ui.pause.textContent === 'Resume transcoders') {
      send({ type: 'transcoders', request: { do: 'measure' }, train: true });
      ui.pause.textContent = 'Pause transcoders';
    } else {
      send({ type: 'features-pause' });
      ui.pause.disabled = true;
    }
  });
  ui.group.addEventListener('click', () => (view.group(), picked(null)));
  ui.ungroup.addEventListener('click', () => (view.ungroup(), picked(null)));
  ui.knock.addEventListener('click', () => intervene(0));
  ui.steer.addEventListener('click', () => intervene(Number(ui.factor.value)));
  ui.download.addEventListener('click', () => file && saveFile(JSON.stringify(file), 'attribution-graph.json', 'application/json'));
  on('transcoders', (data) => shown[data.asked]?.(data));
  on('error:transcoders', ({ message }) => {
    ui.error.textContent = message;
    if (ui.status.textContent === READING) ui.status.textContent = '';
    if (ui.summary.textContent === 'Tracing\u2026') ui.summary.textContent = '';
  });
  on('transcoders-paused', ({ answer }) => {
    progress({ answer });
    ui.status.textContent = `Paused at step ${answer.step} of ${answer.steps}: they trace prompts as they are.`;
    ready();
    ui.pause.textContent = 'Resume transcoders';
    ui.pause.disabled = false;
  });
  on('created', newModel);
  on('loaded', newModel);
}
