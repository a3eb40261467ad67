// The circuit behind an answer: every edge between the model's parts (the input, each head's
// query, key and value, each MLP, the logits) scored by patching it exactly, by EAP and by EAP-IG
// (crates/gpt/src/inspect/circuit/); the fewest edges that keep 90% of the answer's logit
// difference, drawn layer by layer; and each way's faithfulness curve. While the model trains,
// evaluations record the circuit (exact ranking, the swap where sequences repeat), and the view
// draws the latest and how each strong edge grew; "Find the circuit" scores every way now, with
// MIB's scores of each ranking (mib-curve.js).
import { decimal, say, t } from '../i18n.js';
import { onPoint } from '../pointing.js';
import { saveFile } from '../save-file.js';
import { AXIS, CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';
import { labelledSelect, paragraph } from './grid.js';
import { MibCurve, mibSummary } from './mib-curve.js';
import { clauses, sentences } from '../format.js';

/** Each way of finding a circuit, as the view names it. */
const METHODS = { exact: () => t('views.circuit.exact'), greedy: () => t('views.circuit.greedy'), eap_ig: () => 'EAP-IG', eap: () => 'EAP' };
const [POSITIVE, NEGATIVE] = ['#2563eb', '#dc2626'];
const percent = (x) => `${Math.round(100 * x) || 0}%`;
/** What the metric is, as the summary names it. */
const METRIC = { logit_difference: () => t('views.circuit.metric-difference'), loss: () => t('views.circuit.metric-loss') };

/** A node's name as the page names parts (layers and heads from 1): L1H2, MLP1, input, logits. */
function nodeName(node) {
  if (node.kind === 'input') return t('views.circuit.input');
  if (node.kind === 'logits') return t('views.circuit.logits');
  if (node.kind === 'mlp') return `MLP${node.layer + 1}`;
  return `L${node.layer + 1}H${node.head + 1}`;
}

/** An edge as a learner reads it: `L1H1 → L2H3 (key)`. */
function edgeName(graph, edge) {
  const reader = graph.readers[edge.reader];
  const edgeText = `${nodeName(graph.writers[edge.writer])} → ${nodeName(reader)}`;
  if (reader.part === 'q') return t('views.circuit.query', { edge: edgeText });
  if (reader.part === 'k') return t('views.circuit.key', { edge: edgeText });
  return reader.part === 'v' ? t('views.circuit.value', { edge: edgeText }) : edgeText;
}

/** Where each node sits: rows from the input (bottom) to the logits (top), a row per head layer and MLP. */
function layout(graph, { width, height }) {
  const rows = 2 * graph.n_layer + 2;
  const y = (row) => height - 16 - (row * (height - 32)) / (rows - 1);
  const across = (i, n) => 30 + ((i + 0.5) * (width - 60)) / n;
  const place = (node) => {
    if (node.kind === 'input') return { x: width / 2, y: y(0) };
    if (node.kind === 'logits') return { x: width / 2, y: y(rows - 1) };
    if (node.kind === 'mlp') return { x: width / 2, y: y(2 * node.layer + 2) };
    return { x: across(node.head, graph.n_head), y: y(2 * node.layer + 1) };
  };
  const port = (reader) => {
    const at = place(reader);
    const shift = { q: -12, k: 0, v: 12 }[reader.part] ?? 0;
    return { x: at.x + shift, y: at.y + 8 };
  };
  return { place, port };
}

class CircuitFigure extends CanvasView {
  draw(ctx, size, { graph, edges, scores, chosen }) {
    const { place, port } = layout(graph, size);
    const top = Math.max(1e-9, ...edges.map((e) => Math.abs(scores[e])));
    this.lines = edges.map((e) => {
      const edge = graph.edges[e];
      const [from, to] = [place(graph.writers[edge.writer]), port(graph.readers[edge.reader])];
      from.y -= 8;
      const width = 0.75 + (5 * Math.abs(scores[e])) / top;
      ctx.globalAlpha = chosen === undefined || chosen === e ? 0.9 : 0.35;
      line(ctx, [[from.x, from.y], [to.x, to.y]], { x: (v) => v, y: (v) => v }, scores[e] < 0 ? NEGATIVE : POSITIVE, width);
      return { e, mid: { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 } };
    });
    ctx.globalAlpha = 1;
    const nodes = [...graph.writers, { kind: 'logits' }];
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (const node of nodes) {
      const at = place(node);
      const used = node.kind === 'logits' || edges.some((e) => graph.writers[graph.edges[e].writer] === node)
        || edges.some((e) => { const r = graph.readers[graph.edges[e].reader]; return r.kind === node.kind && r.layer === node.layer && r.head === node.head; });
      ctx.fillStyle = used ? '#111827' : '#d1d5db';
      ctx.fillRect(at.x - 17, at.y - 8, 34, 16);
      ctx.fillStyle = '#ffffff';
      ctx.fillText(nodeName(node), at.x, at.y);
      if (node.kind === 'head') {
        ctx.fillStyle = '#6b7280';
        ['q', 'k', 'v'].forEach((p, i) => ctx.fillText(p, at.x - 12 + 12 * i, at.y + 14));
      }
    }
  }

  /** The circuit's edge nearest the point (x, y) in CSS pixels, if one is near. */
  nearest(x, y) {
    let best;
    for (const l of this.lines ?? []) {
      const d = Math.hypot(l.mid.x - x, l.mid.y - y);
      if (d < 24 && (!best || d < best.d)) best = { e: l.e, d };
    }
    return best?.e;
  }
}

class FaithfulnessCurve extends CanvasView {
  draw(ctx, size, { circuits, total }) {
    const items = circuits.map((c, i) => [METHODS[c.method](), PALETTE[i]]);
    const ys = circuits.flatMap((c) => c.curve.map(([, f]) => f));
    const box = keyedFrame(ctx, size, [0, total], [Math.min(0, ...ys), Math.max(1.05, ...ys)], items, { xLabel: t('views.circuit.edges-kept'), yLabel: t('views.circuit.share-kept') });
    line(ctx, [[0, 0.9], [total, 0.9]], box, '#9ca3af', 1, [4, 4]);
    circuits.forEach((c, i) => line(ctx, c.curve, box, PALETTE[i], 2));
    const ways = circuits.map((c) => t('views.circuit.keeps', { method: METHODS[c.method](), faithfulness: decimal(c.faithfulness, 2), edges: c.edges.length }));
    this.canvas.setAttribute('aria-label', t('views.circuit.curve-label', { ways: clauses(ways) }));
  }
}

/** How the strongest edges' scores grew at each recorded step, and the step the circuit formed. */
class TimelineChart extends CanvasView {
  draw(ctx, size, { graph, timeline, formed }) {
    const last = timeline.at(-1);
    const top = last.scores.map((v, e) => e).sort((a, b) => Math.abs(last.scores[b]) - Math.abs(last.scores[a])).slice(0, 5);
    const items = top.map((e, i) => [edgeName(graph, graph.edges[e]), PALETTE[i]]);
    const values = timeline.flatMap((p) => top.map((e) => p.scores[e]));
    const steps = [timeline[0].step, Math.max(last.step, timeline[0].step + 1)];
    const box = keyedFrame(ctx, size, steps, [Math.min(0, ...values), Math.max(0, ...values)], items, { xLabel: t('common.step'), yLabel: t('views.circuit.edge-score') });
    top.forEach((e, i) => line(ctx, timeline.map((p) => [p.step, p.scores[e]]), box, PALETTE[i], 2));
    if (formed != null) {
      line(ctx, [[formed, Math.min(0, ...values)], [formed, Math.max(0, ...values)]], box, AXIS, 1, [4, 4]);
      ctx.fillStyle = AXIS;
      ctx.textAlign = 'left';
      ctx.fillText(t('views.circuit.formed'), box.x(formed) + 4, box.bottom - 8);
    }
    const strongest = items.map(([name], i) => t('views.circuit.edge-value', { name, score: decimal(last.scores[top[i]], 2) })).join(', ');
    const said = { n: timeline.length, step: last.step, formed, edges: strongest };
    this.canvas.setAttribute('aria-label', t(formed != null ? 'views.circuit.timeline-label' : 'views.circuit.timeline-label-unformed', said));
  }
}

export class CircuitView {
  static key = 'circuit';
  static get title() { return t('views.circuit.title'); }
  static get hint() { return t('views.circuit.hint'); }
  static wide = true;

  constructor(figure, { ask }) {
    const number = (id, text, value, min, max) => {
      const label = document.createElement('label');
      label.className = 'row';
      const el = Object.assign(document.createElement('input'), { id, type: 'number', value, min, max, step: 1 });
      label.append(text, ' ', el);
      return [label, el];
    };
    const corruptions = [['symbol', t('views.circuit.symbol')], ['swap', t('views.circuit.swap')]];
    const [corruptionLabel, corruption] = labelledSelect('circuit-corruption', t('views.circuit.corruption'), corruptions);
    const metrics = [['logit_difference', t('views.circuit.logit-difference')], ['loss', t('views.circuit.loss-of-answer')]];
    const [metricLabel, metric] = labelledSelect('circuit-metric', t('views.circuit.metric'), metrics);
    const [pairsLabel, pairs] = number('circuit-pairs', t('views.circuit.pairs'), 32, 1, 256);
    const [stepsLabel, steps] = number('circuit-ig-steps', t('views.circuit.ig-steps'), 10, 1, 100);
    const ways = Object.entries(METHODS).map(([way, name]) => [way, name()]);
    const [drawnLabel, drawn] = labelledSelect('circuit-drawn', t('views.circuit.drawn'), ways);
    this.settings = (find) => ({ circuit: { corruption: corruption.value, metric: metric.value, pairs: Number(pairs.value) || 1, ig_steps: Number(steps.value) || 1, find } });
    this.ask = ask;
    this.pending = null; // the circuit question of a find asked for, until a refresh answers it
    const find = () => {
      const asked = this.settings(true);
      this.pending = JSON.stringify(asked.circuit);
      this.showFinding();
      ask(asked);
    };
    [corruption, metric, pairs, steps].forEach((el) => el.addEventListener('change', find));
    this.find = Object.assign(document.createElement('button'), { type: 'button', id: 'circuit-find', textContent: t('views.circuit.find') });
    this.find.addEventListener('click', find);
    this.save = Object.assign(document.createElement('button'), { type: 'button', id: 'circuit-save', textContent: t('views.circuit.save'), hidden: true });
    this.save.addEventListener('click', () => saveFile(JSON.stringify(this.data.found.eap_ig_graph), 'circuit-graph.json', 'application/json'));
    drawn.addEventListener('change', () => this.redraw());
    Object.assign(this, { drawn });
    this.summary = paragraph('readout');
    this.summary.id = 'circuit-summary';
    this.figure = new CircuitFigure(viewCanvas(figure, 'circuit-figure', t('views.circuit.figure')));
    this.figure.canvas.tabIndex = 0;
    this.readout = paragraph('readout');
    this.readout.id = 'circuit-readout';
    this.readout.setAttribute('aria-live', 'polite');
    this.curve = new FaithfulnessCurve(viewCanvas(figure, 'circuit-curve', t('views.circuit.curve')));
    this.mib = new MibCurve(viewCanvas(figure, 'circuit-mib', t('views.circuit.mib-curve')));
    this.timeline = new TimelineChart(viewCanvas(figure, 'circuit-timeline', t('views.circuit.timeline')));
    figure.prepend(corruptionLabel, metricLabel, pairsLabel, stepsLabel, this.find, this.save, drawnLabel, this.summary);
    figure.insertBefore(this.readout, this.curve.canvas);
    const canvas = this.figure.canvas;
    onPoint(canvas, (event) => {
      const box = canvas.getBoundingClientRect();
      this.select(this.figure.nearest(event.clientX - box.left, event.clientY - box.top));
    }, () => this.select(undefined));
    canvas.addEventListener('keydown', (event) => {
      const edges = this.shown?.edges ?? [];
      if (!edges.length || !['ArrowRight', 'ArrowLeft', 'ArrowDown', 'ArrowUp'].includes(event.key)) return;
      event.preventDefault();
      const at = edges.indexOf(this.chosen);
      const step = event.key === 'ArrowRight' || event.key === 'ArrowDown' ? 1 : -1;
      this.select(edges[(at + step + edges.length) % edges.length]);
    });
  }

  /** Reads out edge `e` (none: how to read the figure). */
  select(e) {
    this.chosen = e;
    const shown = this.shown;
    if (!shown) return;
    if (e === undefined) {
      this.readout.textContent = t('views.circuit.how-to-read');
    } else {
      const found = this.data.found;
      const all = found && { exact: decimal(found.exact?.[e], 3), eap: decimal(found.eap[e], 3), eapIg: decimal(found.eap_ig[e], 3) };
      const recorded = { score: decimal(shown.scores[e], 3), step: shown.step };
      const scores = found ? t(found.exact ? 'views.circuit.scores-found-exact' : 'views.circuit.scores-found', all)
        : t(shown.method === 'exact' ? 'views.circuit.score-exact' : 'views.circuit.score-eap-ig', recorded);
      this.readout.textContent = t('views.circuit.readout', { edge: edgeName(shown.graph, shown.graph.edges[e]), scores, name: shown.graph.edges[e].name });
    }
    this.figure.update({ ...shown, chosen: e });
  }

  /** What the figure draws: the circuit found now, by the chosen way, or else the latest recorded one. */
  redraw() {
    const { graph, found, timeline } = this.data ?? {};
    if (!graph) return;
    if (found) {
      const named = found.circuits.find((n) => n.method === this.drawn.value) ?? found.circuits[0];
      const scores = found.exact ?? found.eap_ig;
      this.shown = { graph, edges: named.edges, scores, method: named.method, faithfulness: named.faithfulness };
    } else if (timeline.at(-1)?.edges.length) {
      const point = timeline.at(-1);
      this.shown = { graph, edges: point.edges, scores: point.scores, method: point.method, faithfulness: point.faithfulness, step: point.step };
    } else {
      this.shown = null;
      this.figure.update(null);
      return;
    }
    const { edges, scores, method, faithfulness } = this.shown;
    const names = edges.slice().sort((a, b) => Math.abs(scores[b]) - Math.abs(scores[a])).slice(0, 5).map((e) => edgeName(graph, graph.edges[e]));
    this.select(this.chosen);
    const by = found ? METHODS[method]() : t('views.circuit.by-recorded', { step: this.shown.step });
    const said = { by, edges: edges.length, total: graph.edges.length, faithfulness: percent(faithfulness), strongest: names.join(', ') };
    this.figure.canvas.setAttribute('aria-label', t('views.circuit.figure-label', said));
  }

  /** The button while a find is asked for. */
  showFinding() {
    this.find.disabled = Boolean(this.pending);
    this.find.textContent = t(this.pending ? 'views.circuit.finding' : 'views.circuit.find');
  }

  /** The view could not answer (its error shows in its place): the ask is over. */
  failed() {
    this.pending = null;
    this.showFinding();
  }

  update(data, { asked }) {
    this.data = data;
    const { found, timeline, formed } = data;
    // A find asked for is done (`circuit-found`, which a lesson waits for) once a refresh answers
    // its very question: one sent before the worker heard it does not.
    if (this.pending && JSON.stringify(asked?.circuit) === this.pending) {
      this.pending = null;
      if (found) document.dispatchEvent(new CustomEvent('circuit-found'));
    }
    this.showFinding();
    this.drawn.disabled = !found;
    this.save.hidden = !found;
    if (found) {
      // Found once: the refreshes while training show it and the records, without finding it again.
      this.ask(this.settings(false), { quiet: true });
      for (const option of this.drawn.options) option.disabled = !found.circuits.some((n) => n.method === option.value);
      if (this.drawn.selectedOptions[0]?.disabled) this.drawn.value = found.circuits[0].method;
    }
    this.summary.textContent = found ? this.foundSummary(found) : this.recordedSummary(timeline, formed);
    this.redraw();
    this.curve.update(found ? { circuits: found.circuits, total: found.graph.edges.length } : null);
    this.mib.update(found?.circuits.some((c) => c.mib) ? { circuits: found.circuits, names: METHODS } : null);
    this.timeline.update(timeline.length ? { graph: data.graph, timeline, formed } : null);
  }

  recordedSummary(timeline, formed) {
    const point = timeline.at(-1);
    if (!point) return t('views.circuit.not-recorded');
    const circuit = point.edges.length ? t('views.circuit.recorded-circuit', { edges: point.edges.length, faithfulness: percent(point.faithfulness) })
      : t('views.circuit.no-circuit');
    const corruption = point.corruption === 'swap' ? t('views.circuit.swap-short') : t('views.circuit.symbol-short');
    const recorded = t('views.circuit.recorded', { step: point.step, corruption, pairs: point.pairs, clean: decimal(point.clean, 2), corrupted: decimal(point.corrupted, 2), circuit });
    const when = formed != null ? [t('views.circuit.formed-at', { step: formed })] : [];
    return sentences([recorded, ...when, t('views.circuit.find-more')]);
  }

  foundSummary(c) {
    const example = c.examples[0];
    const ways = c.circuits.map((n) => t(n.reached ? 'views.circuit.way' : 'views.circuit.way-short', {
      method: METHODS[n.method](), edges: n.edges.length, faithfulness: percent(n.faithfulness), complement: percent(n.complement),
    }));
    const agree = c.agreement.map((a) => t('views.circuit.agree', {
      method: METHODS[a.method](), spearman: decimal(a.spearman, 2), overlap: a.overlap, top: a.top_k,
    }));
    const pair = { n: c.pairs, clean: JSON.stringify(example.clean), answer: JSON.stringify(example.answer), corrupted: JSON.stringify(example.corrupted), wrong: JSON.stringify(example.wrong) };
    return sentences([
      t('views.circuit.pairs-example', pair),
      t('views.circuit.metric-values', { metric: METRIC[c.request.metric](), clean: decimal(c.clean, 2), corrupted: decimal(c.corrupted, 2), edges: c.graph.edges.length }),
      c.note ? say(c.note) : '',
      c.shared ? t('views.circuit.shared', { n: c.shared.workers, seconds: decimal(c.shared.ms / 1000, 2) }) : '',
      t('views.circuit.circuits', { ways: clauses(ways) }),
      agree.length ? t('views.circuit.agreement', { agreement: clauses(agree) }) : '',
      ...mibSummary(c.circuits, c.graph.edges.length, METHODS),
      c.known ? t('views.circuit.truth', { n: c.known.length, ways: clauses(c.circuits.map((n) => t('views.circuit.truth-way', {
        method: METHODS[n.method](), auroc: decimal(n.truth.auroc, 2), precision: decimal(n.truth.precision, 2), recall: decimal(n.truth.recall, 2),
      }))) }) : '',
    ]);
  }
}
