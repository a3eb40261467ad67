// "Attribution graph": a transcoder for every MLP of the run's model, trained in the tab (shared
// among the workers, paused and resumed like the autoencoder), their measures, and the graph
// behind one prompt's next token (graph-view.js): which features at which positions fed which, on
// to the output. Features picked in it show their card and their edges from earlier positions, can
// be grouped by hand, and knocked out or scaled, the graph's predicted effect beside the real one;
// an edge between positions, clicked or tapped, shows the heads that carry it (its head loadings); a head's attention between two
// positions is explained by graph-why.js. The graph downloads as the file Neuronpedia's graph
// viewer opens.
import { decimal, t } from './i18n.js';
import { on, send } from './engine.js';
import { savedNote } from './saved-note.js';
import { sentences, tokenLabel } from './format.js';
import { contextItems, fillMeasures, tokenList, trainingSpeed } from './feature-card.js';
import { GraphView, headParts, signed } from './graph-view.js';
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
  intoTitle: $('graph-into-title'), into: $('graph-edges-into'), edgeSummary: $('graph-edge-summary'), edgeHeads: $('graph-edge-heads'),
};
/** Edges into a picked feature listed at most. */
const MOST_INTO = 8;
/** Rows a step: as good as 64 for nano-cpu's transcoders, in half the time. */
const ROWS = 32;
const view = new GraphView($('graph-svg'), picked, showEdge);
let traced = null; // the prompt of the graph shown
let file = null; // the graph shown, as Neuronpedia's file
const saved = savedNote(ui.status); // once trained, the status says when the run's next save kept it

const ask = (request) => send({ type: 'transcoders', request });
const percent = (x) => `${decimal(100 * x, 1)}%`;

function start(event) {
  event.preventDefault();
  const config = {
    point: { kind: 'mlp_in', layer: 0 }, output: { kind: 'mlp_out', layer: 0 }, expansion: Number(ui.expansion.value),
    architecture: { kind: 'top_k', k: Number(ui.k.value), aux_coefficient: 1 }, dead_tokens: 200000, skip: ui.skip.checked,
  };
  ui.error.textContent = '';
  send({ type: 'transcoders', request: { do: 'start', config, rows: ROWS, steps: Number(ui.steps.value), learning_rate: 1e-3, seed: 1337 }, train: true });
  ui.status.textContent = t('graph.reading');
}

function showMeasures(m) {
  const items = [
    [t('graph.top1'), percent(m.top1_agreement), t('graph.top1-about', { tokens: m.tokens })],
    ['KL', decimal(m.kl, 3), t('graph.kl-about')],
    [t('graph.loss'), `${decimal(m.loss_clean, 3)} \u2192 ${decimal(m.loss_replaced, 3)}`, t('graph.loss-about')],
    ...m.layers.map((l, i) => [
      t('graph.mlp-error', { mlp: i + 1 }), decimal(l.normalized_mse, 3), t('graph.mlp-error-about', { l0: decimal(l.l0, 1), dead: percent(l.dead) }),
    ]),
  ];
  fillMeasures(ui.measures, items);
}

const mib = (bytes) => `${decimal(bytes / 2 ** 20, 0)} MiB`;

function progress({ answer, memory }) {
  const { step, steps, report, measures } = answer;
  ui.progress.max = steps;
  ui.progress.value = step;
  const held = memory ? ` ${t('graph.workers-hold', { memory: mib(memory) })}` : '';
  const skip = answer.copy?.transcoders?.skip;
  if (skip !== undefined) ui.skip.checked = skip; // a restored run's transcoders say which kind they are
  const said = { step, steps, features: answer.d_sae, modelStep: answer.model_step };
  const line = report && step < steps
    ? t(skip ? 'graph.progress-speed-skip' : 'graph.progress-speed', { ...said, speed: trainingSpeed(report) })
    : t(skip ? 'graph.progress-skip' : 'graph.progress', said);
  ui.status.textContent = line + held;
  if (measures) showMeasures(measures);
  ui.pause.disabled = step >= steps;
  if (step >= steps) ready();
}

/** The transcoders can trace prompts, and are kept with the run's next save. */
function ready() {
  saved.arm();
  ui.trace.disabled = false;
  ui.pause.textContent = t('graph.pause-transcoders');
}

function trace(event) {
  event?.preventDefault();
  if (!ui.prompt.value) return void (ui.error.textContent = t('graph.type-prompt'));
  ui.error.textContent = '';
  ui.summary.textContent = t('graph.tracing');
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
  const summary = t('graph.summary', {
    features: graph.features, prompt: JSON.stringify(traced), kept, edges: file.links.length, megabytes: decimal(graph.bytes / 2 ** 20, 1),
    memory: mib(memory), completeness: percent(graph.scores.completeness), replacement: percent(graph.scores.replacement), next,
  });
  const crossing = file.links.some((l) => l.heads);
  ui.summary.textContent = sentences([summary, kept ? t('graph.pick') : t('graph.none-kept'), crossing ? t('graph.edge-hint') : '']);
  view.show(file);
  whyFor(traced, file.metadata.prompt_tokens);
  ui.download.disabled = false;
  ui.tools.hidden = false;
  ui.effects.replaceChildren();
  picked(null);
  document.dispatchEvent(new Event('graph-traced'));
}

/** A feature picked in the graph: its card; the tools follow what is picked. */
function picked(node) {
  const count = view.pickedFeatures().length;
  ui.group.disabled = count < 2;
  ui.knock.disabled = ui.steer.disabled = count === 0;
  ui.ungroup.disabled = view.groups.length === 0;
  edgesInto(node);
  if (node) ask({ do: 'card', layer: Number(node.layer), feature: Number(node.node_id.split('_')[1]) });
}

/** The edges into `node` from earlier positions, each a button that shows its heads. */
function edgesInto(node) {
  const edges = node ? view.edgesInto(node.node_id).slice(0, MOST_INTO) : [];
  ui.intoTitle.hidden = edges.length === 0;
  ui.intoTitle.textContent = node ? t('graph.edges-into', { node: view.shortName(node.node_id) }) : '';
  ui.into.replaceChildren(...edges.map((edge) => {
    const button = Object.assign(document.createElement('button'), { type: 'button', textContent: `${view.shortName(edge.source)} ${signed(edge.weight)}` });
    button.addEventListener('click', () => showEdge(edge));
    const item = document.createElement('li');
    item.append(button);
    return item;
  }));
  if (!node) showEdge(null);
}

/** The heads that carry `edge` (null: none shown), each with its part and its share of the edge. */
function showEdge(edge) {
  ui.edgeHeads.replaceChildren();
  if (!edge) return void (ui.edgeSummary.textContent = '');
  const ends = { from: view.shortName(edge.source), to: view.shortName(edge.target), weight: signed(edge.weight) };
  const parts = headParts(edge);
  if (!parts.length) return void (ui.edgeSummary.textContent = t('graph.edge-within', ends));
  ui.edgeSummary.textContent = t('graph.edge-heads', ends);
  const rest = edge.weight - parts.reduce((sum, h) => sum + h.part, 0); // a supernode's edges within one position
  const rows = parts.map((h) => [t('graph.edge-head', { layer: h.layer, head: h.head }), h.part]);
  if (Math.abs(rest) > 1e-4 * (1 + Math.abs(edge.weight))) rows.push([t('graph.edge-own-position'), rest]);
  const head = document.createElement('tr');
  for (const text of [t('graph.head-column'), t('graph.part'), t('graph.share')]) head.append(Object.assign(document.createElement('th'), { textContent: text, scope: 'col' }));
  ui.edgeHeads.append(Object.assign(document.createElement('caption'), { textContent: t('graph.edge-caption') }), head);
  for (const [name, part] of rows) {
    const tr = ui.edgeHeads.insertRow();
    for (const text of [name, signed(part), percent(part / edge.weight)]) tr.insertCell().textContent = text;
  }
}

function showCard({ answer }) {
  const { summary: s, contexts, promoted, suppressed } = answer.card;
  ui.card.hidden = false;
  ui.cardTitle.textContent = t('features.card-title', { feature: s.feature });
  ui.cardSummary.textContent = t('graph.card-summary', { density: percent(s.density), max: decimal(s.max, 2), token: JSON.stringify(tokenLabel(s.top_token)) });
  ui.contexts.replaceChildren(...contextItems(contexts, s.max));
  tokenList(ui.promoted, promoted);
  tokenList(ui.suppressed, suppressed);
}

function intervene(factor) {
  ask({ do: 'intervene', prompt: traced, features: view.pickedFeatures(), factor });
}

function showEffects({ answer }) {
  const head = document.createElement('tr');
  const columns = [t('graph.next-token'), t('graph.predicted'), t('graph.replacement'), t('graph.frozen-attention'), t('graph.free-attention'), t('graph.probability-after')];
  for (const text of columns) head.append(Object.assign(document.createElement('th'), { textContent: text, scope: 'col' }));
  const rows = answer.effects.map((e) => {
    const tr = document.createElement('tr');
    const changes = [e.predicted, e.replacement, e.frozen_attention, e.free_attention].map((x) => decimal(x, 3));
    for (const text of [tokenLabel(e.token), ...changes, decimal(e.probability, 3)]) tr.insertCell().textContent = text;
    return tr;
  });
  ui.effects.replaceChildren(Object.assign(document.createElement('caption'), { textContent: t('graph.effects-caption') }), head, ...rows);
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
  edgesInto(null);
  ui.progress.value = 0;
  ui.summary.textContent = '';
  view.show(null);
  ui.status.textContent = t('graph.pause-first');
}

export function initGraph() {
  initWhy();
  ui.form.addEventListener('submit', start);
  ui.traceForm.addEventListener('submit', trace);
  ui.pause.addEventListener('click', () => {
    if (ui.pause.textContent === t('graph.resume')) {
      send({ type: 'transcoders', request: { do: 'measure' }, train: true });
      ui.pause.textContent = t('graph.pause-transcoders');
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
    if (ui.status.textContent === t('graph.reading')) ui.status.textContent = '';
    if (ui.summary.textContent === t('graph.tracing')) ui.summary.textContent = '';
  });
  on('transcoders-paused', ({ answer }) => {
    progress({ answer });
    ui.status.textContent = t('graph.paused', { step: answer.step, steps: answer.steps });
    ready();
    ui.pause.textContent = t('graph.resume');
    ui.pause.disabled = false;
  });
  on('created', newModel);
  on('loaded', newModel);
}
