// "Why does this head attend there?": for the graph shown, a head (layer and head) and two
// positions; the head's score before the softmax split into the pairs of a query-side node and a
// key-side node (features, errors, tokens, the biases) that make it, strongest first.
import { decimal, t } from './i18n.js';
import { on, send } from './engine.js';
import { count, tokenLabel } from './format.js';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('graph-why-form'), layer: $('graph-why-layer'), head: $('graph-why-head'), query: $('graph-why-query'),
  key: $('graph-why-key'), button: $('graph-why'), summary: $('graph-why-summary'), pairs: $('graph-why-pairs'),
};
let shown = null; // the prompt and its tokens, of the graph shown
let model = { layers: 1, heads: 1 }; // the run's
let asking = false; // a question is out: a refusal is said beside the form too

/** A side of a term as a learner reads it. */
function side(s, tokens) {
  const at = (p) => `${p} ${JSON.stringify(tokenLabel(tokens[p] ?? ''))}`;
  switch (s.kind) {
    case 'feature': return t('why.feature', { layer: s.layer + 1, feature: s.feature, at: at(s.position) });
    case 'error': return t('why.error', { layer: s.layer + 1, at: at(s.position) });
    case 'token': return t('why.token', { at: at(s.position) });
    default: return t('why.biases');
  }
}

function showWhy({ answer }) {
  const w = answer.why;
  const tokens = shown?.tokens ?? [];
  const name = (p) => `${p} ${JSON.stringify(tokenLabel(tokens[p] ?? ''))}`;
  ui.summary.textContent = t('why.summary', {
    layer: w.layer + 1, head: w.head + 1, attention: decimal(100 * w.attention, 1), query: name(w.query), key: name(w.key), score: decimal(w.score, 3),
    terms: count(w.terms), total: decimal(w.total, 3), queryBias: decimal(100 * w.query_bias_share, 0), keyBias: decimal(100 * w.key_bias_share, 0),
  });
  const head = document.createElement('tr');
  for (const text of [t('why.term'), t('why.query-side'), t('why.key-side')]) head.append(Object.assign(document.createElement('th'), { textContent: text, scope: 'col' }));
  ui.pairs.replaceChildren(head, ...w.pairs.map((p) => {
    const tr = document.createElement('tr');
    for (const text of [`${p.value >= 0 ? '+' : ''}${decimal(p.value, 3)}`, side(p.query, tokens), side(p.key, tokens)]) tr.insertCell().textContent = text;
    return tr;
  }));
}

/** A new graph, of `prompt` (its `tokens`): the question's bounds; the last layer and position ask first. */
export function whyFor(prompt, tokens) {
  shown = { prompt, tokens };
  Object.assign(ui.layer, { max: String(model.layers), value: String(model.layers) });
  Object.assign(ui.head, { max: String(model.heads) });
  Object.assign(ui.query, { max: String(tokens.length - 1), value: String(tokens.length - 1) });
  Object.assign(ui.key, { max: String(tokens.length - 1) });
  ui.button.disabled = false;
  ui.summary.textContent = '';
  ui.pairs.replaceChildren();
}

export function initWhy() {
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!shown) return;
    const number = (el) => Number(el.value);
    asking = true;
    send({ type: 'transcoders', request: { do: 'why', prompt: shown.prompt, layer: number(ui.layer) - 1, head: number(ui.head) - 1, query: number(ui.query), key: number(ui.key) } });
  });
  on('transcoders', (data) => data.asked === 'why' && (asking = false, showWhy(data)));
  on('error:transcoders', ({ message }) => {
    if (!asking) return;
    asking = false;
    ui.summary.textContent = message;
    ui.pairs.replaceChildren();
  });
  const forget = ({ settings }) => {
    model = { layers: settings.model.n_layer, heads: settings.model.n_head };
    shown = null;
    ui.button.disabled = true;
    ui.summary.textContent = '';
    ui.pairs.replaceChildren();
  };
  on('created', forget);
  on('loaded', forget);
}
