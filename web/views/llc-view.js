// The learning coefficient now (crates/gpt/src/inspect/llc_view.rs): "Estimate" runs devinterp's
// SGLD chains from the current weights, shared among the workers, for the whole model, one part or
// every head. One part draws each chain's loss at each draw beside the loss at the trained weights
// (the diagnostic: a trace that climbs or blows up says the step is too big); several draw each
// part's LLC with its spread. The words say what the traces say, the setting, and what it took.
import { count, decimal, list, t } from '../i18n.js';
import { AXIS, CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';
import { headName, labelledSelect, paragraph } from './grid.js';
import { sentences } from '../format.js';

/** Steps ε a learner can try (the engine's calibrated default is among them). */
const STEPS = [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 1e-2];
/** What the chains' traces say, when they say something is wrong. */
const VERDICTS = {
  diverged: (part) => t('views.llc.verdict-diverged', { part }),
  climbing: (part) => t('views.llc.verdict-climbing', { part }),
  strayed: (part) => t('views.llc.verdict-strayed', { part }),
  descending: (part) => t('views.llc.verdict-descending', { part }),
};

/** A part as the page names it. */
function partName(part) {
  if (part.kind === 'whole') return t('views.llc.whole');
  if (part.kind === 'embeddings') return t('views.llc.embeddings');
  if (part.kind === 'mlp') return `MLP${part.layer + 1}`;
  return headName(part.layer, part.head);
}

const finite = (values) => values.filter((v) => Number.isFinite(v));

/** What tells one estimate from another: its step, its time, and its parts' values. */
const signature = (estimated) => JSON.stringify(estimated ? [estimated.step, estimated.ms, estimated.parts.map((p) => p.llc.mean)] : null);

/** A step as the menu writes it (the engine's float32 1e-4 arrives as 0.0000999…), in the language's way. */
function stepText(x) {
  const short = Number(x.toPrecision(2));
  return decimal(short, String(short).split('.')[1]?.length ?? 0); // JavaScript writes 1e-5 as 0.00001
}

/** Each chain's losses at its draws, and the loss at the trained weights. */
class TracesFigure extends CanvasView {
  draw(ctx, size, { llc }) {
    const traces = llc.traces.map((trace) => trace.map((l) => (l === null ? NaN : l)));
    const losses = finite([...traces.flat(), llc.init_loss]);
    const [low, high] = [Math.min(...losses), Math.max(...losses)];
    const pad = (high - low) * 0.05 || 1e-3;
    const draws = Math.max(2, ...traces.map((trace) => trace.length));
    const key = [...traces.map((_, c) => [t('views.llc.chain', { n: c + 1 }), PALETTE[c % PALETTE.length]]), [t('views.llc.init-loss'), AXIS, [4, 3]]];
    const box = keyedFrame(ctx, size, [1, draws], [low - pad, high + pad], key, { xLabel: t('views.llc.draw'), yLabel: t('views.llc.loss'), left: 52 });
    traces.forEach((trace, c) => line(ctx, trace.map((l, i) => [i + 1, l]).filter(([, l]) => Number.isFinite(l)), box, PALETTE[c % PALETTE.length], 1.2));
    line(ctx, [[1, llc.init_loss], [draws, llc.init_loss]], box, AXIS, 1, [4, 3]);
  }
}

/** Each part's LLC as a bar, with its spread over the chains. */
class PartsFigure extends CanvasView {
  draw(ctx, size, { parts }) {
    const means = parts.map((p) => p.llc.mean ?? NaN);
    const top = Math.max(1e-3, ...finite(parts.map((p, i) => means[i] + (p.llc.std ?? 0))));
    const box = keyedFrame(ctx, size, [0, parts.length], [Math.min(0, ...finite(means)), top * 1.1], [], { yLabel: t('views.llc.axis'), xTicks: false });
    const width = (box.x(1) - box.x(0)) * 0.6;
    ctx.textAlign = 'center';
    parts.forEach((p, i) => {
      const x = box.x(i + 0.5);
      ctx.fillStyle = PALETTE[i % PALETTE.length];
      if (Number.isFinite(means[i])) ctx.fillRect(x - width / 2, box.y(means[i]), width, box.y(0) - box.y(means[i]));
      const spread = p.llc.std ?? 0;
      if (Number.isFinite(means[i]) && spread > 0) line(ctx, [[i + 0.5, means[i] - spread], [i + 0.5, means[i] + spread]], box, AXIS, 1.2);
      ctx.fillStyle = AXIS;
      ctx.fillText(partName(p.part), x, box.bottom + 12);
    });
  }
}

export class LlcView {
  static key = 'llc';
  static get title() { return t('views.llc.title'); }
  static get hint() { return t('views.llc.hint'); }
  static wide = true;

  constructor(figure, { ask }) {
    this.ask = ask;
    [this.partLabel, this.part] = labelledSelect('llc-part', t('views.llc.part'), [['whole', t('views.llc.whole')]]);
    const [stepLabel, step] = labelledSelect('llc-step', t('views.llc.step'), STEPS.map((s) => [String(s), String(stepText(s))]));
    this.step = step;
    this.defaults = null; // the engine's calibrated setting, once it has sent it
    this.button = Object.assign(document.createElement('button'), { type: 'button', id: 'llc-estimate', textContent: t('views.llc.estimate') });
    this.button.addEventListener('click', () => this.estimate());
    this.summary = paragraph('readout');
    this.summary.id = 'llc-summary';
    this.summary.setAttribute('aria-live', 'polite');
    this.summary.textContent = t('views.llc.none');
    figure.append(this.partLabel, stepLabel, this.button, this.summary);
    this.traces = new TracesFigure(viewCanvas(figure, 'llc-traces', t('views.llc.traces')));
    this.bars = new PartsFigure(viewCanvas(figure, 'llc-parts', t('views.llc.parts')));
    this.traces.update(null);
    this.bars.update(null);
    this.shape = '';
    this.data = null;
    this.waiting = false; // an estimate asked for and not yet answered
    this.asked = null;
  }

  /** The parts the menu names, for a model of `layers` × `heads`. */
  parts(layers, heads) {
    const all = Array.from({ length: layers * heads }, (_, i) => ({ kind: 'head', layer: Math.floor(i / heads), head: i % heads }));
    const value = this.part.value;
    if (value === 'heads') return all;
    if (value === 'whole' || value === 'embeddings') return [{ kind: value }];
    const [kind, layer, head] = value.split(':');
    return [kind === 'mlp' ? { kind, layer: Number(layer) } : { kind, layer: Number(layer), head: Number(head) }];
  }

  /** The menu of parts, rebuilt when the model's shape changes. */
  fillParts(layers, heads) {
    const shape = `${layers}x${heads}`;
    if (shape === this.shape) return;
    this.shape = shape;
    const kept = this.part.value;
    const heading = Array.from({ length: layers * heads }, (_, i) => [`head:${Math.floor(i / heads)}:${i % heads}`, headName(Math.floor(i / heads), i % heads)]);
    const mlps = Array.from({ length: layers }, (_, l) => [`mlp:${l}`, `MLP${l + 1}`]);
    const options = [['whole', t('views.llc.whole')], ['heads', t('views.llc.every-head')], ['embeddings', t('views.llc.embeddings')], ...heading, ...mlps];
    this.part.replaceChildren(...options.map(([value, name]) => new Option(name, value)));
    this.part.value = options.some(([value]) => value === kept) ? kept : 'whole';
  }

  estimate() {
    const [layers, heads] = this.shape.split('x').map(Number);
    this.waiting = true;
    this.asked = signature(this.data?.estimated); // the answer is the first estimate that differs
    this.showWaiting();
    this.ask({ llc: { parts: this.parts(layers || 1, heads || 1), config: { epsilon: Number(this.step.value) }, estimate: true } });
  }

  /** Marks the calibrated step in the menu, and picks it until the learner picks another. */
  markDefault(defaults) {
    if (this.defaults) return;
    this.defaults = defaults;
    const option = [...this.step.options].find((o) => Number(o.value) === Number(defaults.epsilon.toPrecision(2)));
    if (!option) return;
    option.textContent = t('views.llc.default-step', { step: stepText(defaults.epsilon) });
    this.step.value = option.value;
  }

  /** The button while an estimate is asked for (one asked while the model trains runs once it stops). */
  showWaiting() {
    this.button.disabled = this.waiting;
    this.button.textContent = t(this.waiting ? 'views.llc.estimating' : 'views.llc.estimate');
  }

  /** The view could not answer (its error shows in its place): the ask is over. */
  failed() {
    this.settle();
  }

  /** Estimated once: later refreshes show it without running the chains again. */
  settle() {
    if (!this.waiting) return;
    this.waiting = false;
    this.ask({ llc: { estimate: false } }, { quiet: true });
    this.showWaiting();
  }

  update(data, { inside }) {
    this.data = data;
    this.fillParts(inside.n_layer, inside.n_head);
    this.markDefault(data.defaults);
    const { estimated } = data;
    // The answer is an estimate that differs from the one shown when asked (none, once training
    // has moved past that one's step, is still waiting).
    if (this.waiting && estimated && signature(estimated) !== this.asked) {
      this.settle();
      document.dispatchEvent(new CustomEvent('llc-estimated'));
    }
    const one = estimated?.parts.length === 1 ? estimated.parts[0] : null;
    this.traces.update(one ? { llc: one.llc } : null);
    this.bars.update(estimated && !one ? { parts: estimated.parts } : null);
    this.summary.textContent = estimated ? this.said(estimated) : t('views.llc.none');
    if (one) this.traces.canvas.setAttribute('aria-label', t('views.llc.traces-label', { part: partName(one.part), chains: one.llc.traces.length, loss: decimal(one.llc.init_loss, 3) }));
    if (estimated && !one) this.bars.canvas.setAttribute('aria-label', this.ranked(estimated.parts, estimated.step));
  }

  clear() {
    this.shape = '';
    this.data = null;
    this.waiting = false;
    this.showWaiting();
    this.traces.update(null);
    this.bars.update(null);
    this.summary.textContent = t('views.llc.none');
  }

  /** What the estimate is, how it was made, and what its chains say. */
  said({ step, config, rows, parts, ms, workers }) {
    const setting = t('views.llc.setting', { chains: config.chains, draws: config.draws, burnIn: config.burn_in, epsilon: stepText(config.epsilon), gamma: count(config.gamma), nbeta: decimal(parts[0].llc.nbeta, 1), rows });
    const each = parts.length === 1 ? this.partSaid(parts[0], step) : this.ranked(parts, step);
    const calibrated = config.epsilon === this.defaults?.epsilon && config.gamma === this.defaults?.gamma ? t('views.llc.calibrated') : '';
    const took = ms == null ? '' : t('views.llc.took', { seconds: decimal(ms / 1000, 1), n: workers });
    // One sentence for each thing the traces say, naming every part they say it of.
    const verdicts = Object.entries(VERDICTS).map(([verdict, say]) => {
      const named = parts.filter((p) => p.verdict === verdict).map((p) => partName(p.part));
      return named.length ? say(list(named)) : '';
    });
    return sentences([each, setting, calibrated, took, ...verdicts]);
  }

  partSaid({ part, llc, verdict }, step) {
    if (llc.mean == null) return t('views.llc.no-value', { part: partName(part), step });
    const acceptance = decimal(finite(llc.acceptance).reduce((a, b) => a + b, 0) / Math.max(1, llc.acceptance.length), 2);
    const value = `${decimal(llc.mean, 2)} ± ${decimal(llc.std, 2)}`;
    const healthy = verdict === 'healthy' ? t('views.llc.verdict-healthy') : '';
    return sentences([t('views.llc.estimate-one', { part: partName(part), value, step }), t('views.llc.acceptance', { acceptance }), healthy]);
  }

  ranked(parts, step) {
    const known = parts.filter((p) => p.llc.mean != null).sort((a, b) => b.llc.mean - a.llc.mean);
    if (!known.length) return t('views.llc.no-value', { part: list(parts.map((p) => partName(p.part))), step });
    const name = (p) => `${partName(p.part)} ${decimal(p.llc.mean, 2)}`;
    return t('views.llc.estimate-parts', { n: parts.length, step, high: name(known[0]), low: name(known.at(-1)) });
  }
}
