// The circuit behind an answer: every edge between the model's parts (the input, each head's
// query, key and value, each MLP, the logits) scored by patching it exactly, by EAP and by EAP-IG
// (crates/gpt/src/inspect/circuit/); the fewest edges that keep 90% of the answer's logit
// difference, drawn layer by layer; and each way's faithfulness curve. While the model trains,
// evaluations record the circuit (exact ranking, the swap where sequences repeat), and the view
// draws the latest and how each strong edge grew; "Find the circuit" scores every way now.
import { onPoint } from '../pointing.js';
import { saveFile } from '../save-file.js';
import { AXIS, CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';
import { paragraph } from './grid.js';

const METHODS = { exact: 'exact patching', greedy: 'greedy pruning', eap_ig: 'EAP-IG', eap: 'EAP' };
const [POSITIVE, NEGATIVE] = ['#2563eb', '#dc2626'];
const percent = (x) => `${Math.round(100 * x) || 0}%`;
/** What the metric is, as the summary names it. */
const METRIC = { logit_difference: 'Logit difference (the answer\'s logit minus the corrupted answer\'s)', loss: 'Loss of the answer' };

/** A node's name as the page names parts (layers and heads from 1): L1H2, MLP1, input, logits. */
function nodeName(node) {
  if (node.kind === 'input') return 'input';
  if (node.kind === 'logits') return 'logits';
  if (node.kind === 'mlp') return `MLP${node.layer + 1}`;
  return `L${node.layer + 1}H${node.head + 1}`;
}

/** An edge as a learner reads it: `L1H1 → L2H3 (key)`. */
function edgeName(graph, edge) {
  const reader = graph.readers[edge.reader];
  const part = { q: ' (query)', k: ' (key)', v: ' (value)' }[reader.part] ?? '';
  return `${nodeName(graph.writers[edge.writer])} → ${nodeName(reader)}${part}`;
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
    const items = circuits.map((c, i) => [METHODS[c.method], PALETTE[i]]);
    const ys = circuits.flatMap((c) => c.curve.map(([, f]) => f));
    const box = keyedFrame(ctx, size, [0, total], [Math.min(0, ...ys), Math.max(1.05, ...ys)], items, { xLabel: 'edges kept', yLabel: 'share of the metric kept' });
    line(ctx, [[0, 0.9], [total, 0.9]], box, '#9ca3af', 1, [4, 4]);
    circuits.forEach((c, i) => line(ctx, c.curve, box, PALETTE[i], 2));
    this.canvas.setAttribute('aria-label', `Faithfulness against edges kept: ${circuits.map((c) => `${METHODS[c.method]} keeps ${c.faithfulness.toFixed(2)} with ${c.edges.length} edges`).join('; ')}`);
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
    const box = keyedFrame(ctx, size, steps, [Math.min(0, ...values), Math.max(0, ...values)], items, { xLabel: 'step', yLabel: 'edge score' });
    top.forEach((e, i) => line(ctx, timeline.map((p) => [p.step, p.scores[e]]), box, PALETTE[i], 2));
    if (formed != null) {
      line(ctx, [[formed, Math.min(0, ...values)], [formed, Math.max(0, ...values)]], box, AXIS, 1, [4, 4]);
      ctx.fillStyle = AXIS;
      ctx.textAlign = 'left';
      ctx.fillText('formed', box.x(formed) + 4, box.bottom - 8);
    }
    const when = formed != null ? `; the circuit formed at step ${formed}` : '; the circuit has not formed yet';
    this.canvas.setAttribute('aria-label', `The strongest edges' scores at ${timeline.length} recorded steps, up to step ${last.step}${when}: ${items.map(([name], i) => `${name} ${last.scores[top[i]].toFixed(2)}`).join(', ')}`);
  }
}

export class CircuitView {
  static key = 'circuit';
  static title = 'The circuit behind the answer';
  static hint = 'Every edge from one part to a later one (a head\'s query, key and value apart) is patched from the corrupted prompts into the clean ones, one at a time: its score is how much the answer\'s logit difference changes. EAP estimates the same from one gradient, EAP-IG from gradients along the way from the corrupted input to the clean one. The circuit is the fewest edges that keep 90% of the difference; blue edges raise it, red ones lower it, thicker ones matter more. A symbol change tests what a head copies; a swap tests where it looks, so only a swap scores the previous-token head\'s edge into the induction head\'s key. While the model trains, evaluations record the circuit by exact patching (a twentieth of the training\'s time at most) and the chart below shows its strongest edges grow; Find the circuit now scores every edge all three ways, in seconds.';
  static wide = true;

  constructor(figure, { ask }) {
    const select = (id, text, options) => {
      const label = document.createElement('label');
      label.className = 'row';
      const el = document.createElement('select');
      el.id = id;
      for (const [value, name] of options) el.append(new Option(name, value));
      label.append(text, el);
      return [label, el];
    };
    const number = (id, text, value, min, max) => {
      const label = document.createElement('label');
      label.className = 'row';
      const el = Object.assign(document.createElement('input'), { id, type: 'number', value, min, max, step: 1 });
      label.append(text, el);
      return [label, el];
    };
    const [corruptionLabel, corruption] = select('circuit-corruption', 'Corruption ', [['symbol', 'a symbol changed (what is copied)'], ['swap', 'the earlier copy swapped (where to look)']]);
    const [metricLabel, metric] = select('circuit-metric', 'Metric ', [['logit_difference', 'logit difference'], ['loss', 'loss of the answer']]);
    const [pairsLabel, pairs] = number('circuit-pairs', 'Pairs ', 32, 1, 256);
    const [stepsLabel, steps] = number('circuit-ig-steps', 'EAP-IG steps ', 10, 1, 100);
    const [drawnLabel, drawn] = select('circuit-drawn', 'Draw the circuit found by ', Object.entries(METHODS));
    this.settings = (find) => ({ circuit: { corruption: corruption.value, metric: metric.value, pairs: Number(pairs.value) || 1, ig_steps: Number(steps.value) || 1, find } });
    this.ask = ask;
    const find = () => {
      this.find.disabled = true;
      this.find.textContent = 'Finding the circuit…';
      ask(this.settings(true));
    };
    [corruption, metric, pairs, steps].forEach((el) => el.addEventListener('change', find));
    this.find = Object.assign(document.createElement('button'), { type: 'button', id: 'circuit-find', textContent: 'Find the circuit now' });
    this.find.addEventListener('click', find);
    this.save = Object.assign(document.createElement('button'), { type: 'button', id: 'circuit-save', textContent: 'Download as EAP-IG\'s Graph JSON', hidden: true });
    this.save.addEventListener('click', () => saveFile(JSON.stringify(this.data.found.eap_ig_graph), 'circuit-graph.json', 'application/json'));
    drawn.addEventListener('change', () => this.redraw());
    Object.assign(this, { drawn });
    this.summary = paragraph('readout');
    this.summary.id = 'circuit-summary';
    this.figure = new CircuitFigure(viewCanvas(figure, 'circuit-figure', 'The circuit'));
    this.figure.canvas.tabIndex = 0;
    this.readout = paragraph('readout');
    this.readout.id = 'circuit-readout';
    this.readout.setAttribute('aria-live', 'polite');
    this.curve = new FaithfulnessCurve(viewCanvas(figure, 'circuit-curve', 'Faithfulness against edges kept'));
    this.timeline = new TimelineChart(viewCanvas(figure, 'circuit-timeline', 'The strongest edges over training'));
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
      this.readout.textContent = 'Point at an edge, or focus the figure and use the arrow keys, to read its scores.';
    } else {
      const found = this.data.found;
      const scores = found
        ? `${found.exact ? `exact ${found.exact[e].toFixed(3)}, ` : ''}EAP ${found.eap[e].toFixed(3)}, EAP-IG ${found.eap_ig[e].toFixed(3)}`
        : `${shown.method === 'exact' ? 'exact' : 'EAP-IG'} ${shown.scores[e].toFixed(3)} at step ${shown.step}`;
      this.readout.textContent = `${edgeName(shown.graph, shown.graph.edges[e])}: ${scores} (EAP-IG's name: ${shown.graph.edges[e].name})`;
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
    const by = found ? METHODS[method] : `the exact ranking recorded at step ${this.shown.step}`;
    this.figure.canvas.setAttribute('aria-label', `The circuit found by ${by}: ${edges.length} of ${graph.edges.length} edges, keeping ${percent(faithfulness)} of the metric; strongest ${names.join(', ')}`);
  }

  update(data) {
    this.data = data;
    const { found, timeline, formed } = data;
    this.find.disabled = false;
    this.find.textContent = 'Find the circuit now';
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
    this.timeline.update(timeline.length ? { graph: data.graph, timeline, formed } : null);
  }

  recordedSummary(timeline, formed) {
    const point = timeline.at(-1);
    if (!point) return 'Evaluations record the circuit while the model trains, a twentieth of its time at most. Train, or find the circuit now.';
    const circuit = point.edges.length ? `the exact ranking's circuit of ${point.edges.length} edges keeps ${percent(point.faithfulness)}` : 'no circuit yet: the corruption moves the metric too little';
    const when = formed != null ? ` The circuit formed at step ${formed}.` : '';
    return `Recorded at step ${point.step} (${point.corruption === 'swap' ? 'the earlier copy swapped' : 'a symbol changed'}, ${point.pairs} pairs): logit difference ${point.clean.toFixed(2)} clean, ${point.corrupted.toFixed(2)} corrupted; ${circuit}.${when} Find the circuit now for EAP and EAP-IG beside exact patching, greedy pruning and the faithfulness curves.`;
  }

  foundSummary(c) {
    const example = c.examples[0];
    const ways = c.circuits.map((n) => `${METHODS[n.method]} ${n.edges.length} edges (${percent(n.faithfulness)} kept${n.reached ? '' : ', short of 90%'}; without them the rest keeps ${percent(n.complement)})`);
    const agree = c.agreement.map((a) => `${a.method === 'eap' ? 'EAP' : 'EAP-IG'} ranks the edges with Spearman ${a.spearman.toFixed(2)} against exact, ${a.overlap} of its top ${a.top_k} the same`);
    return [
      `${c.pairs} pair${c.pairs === 1 ? '' : 's'}, e.g. ${JSON.stringify(example.clean)} → ${JSON.stringify(example.answer)}, corrupted ${JSON.stringify(example.corrupted)} → ${JSON.stringify(example.wrong)}.`,
      `${METRIC[c.request.metric]}: ${c.clean.toFixed(2)} clean, ${c.corrupted.toFixed(2)} corrupted; ${c.graph.edges.length} edges.`,
      c.note ?? '',
      c.shared ? `Every edge patched exactly in ${(c.shared.ms / 1000).toFixed(2)} s, shared by ${c.shared.workers} worker${c.shared.workers === 1 ? '' : 's'}.` : '',
      `Circuits: ${ways.join('; ')}.`,
      agree.length ? `${agree.join('; ')}.` : '',
    ].filter(Boolean).join(' ');
  }
}
