// The live loss chart: each step's training loss (faint), its smoothed curve, the validation loss
// at each evaluation, the uniform-guess line at ln(vocab) (both numbers from the engine), for a
// task the exact-match accuracy on training and held-out problems (right axis), and marked steps
// (when an induction head formed; when a task's accuracy passed its marks), and the learning
// coefficient's live records on an axis of their own with its turns marked (llc-curve.js). Across: steps, or
// training time (each step's, from the engine), where runs whose steps cost more compare fairly.
import { decimal, t } from './i18n.js';
import { duration } from './format.js';
import { onPoint, showTooltip } from './pointing.js';
import { haloText, legend, legendLayout, line, roundStep, series } from './views/plot.js';
import { smoothInto } from './smoothing.js';
import { LLC_AXIS, LLC_COLOR, drawLlc, estimates, llcLabel, llcTip, turnMarks } from './llc-curve.js';
import { ACCURACY_COLOR, drawAccuracy } from './accuracy-axis.js';

const COLORS = {
  raw: 'rgba(37, 99, 235, 0.18)', train: '#2563eb', val: '#ea580c', uniform: '#9ca3af', axis: '#6b7280', grid: '#eef0f3',
  mark: '#dc2626',
};
const PAD = { left: 44, right: 12, top: 12, bottom: 26 };
/** Room for the accuracy axis's labels, when there is one. */
const ACCURACY_AXIS = 38;
const FONT = '11px system-ui, sans-serif';
const percent = (a) => `${decimal(a * 100, 1)}%`;

export class LossChart {
  constructor(canvas, tooltip) {
    this.canvas = canvas;
    this.tooltip = tooltip;
    this.reset({ uniformLoss: null, vocabSize: 0, total: 1 });
    onPoint(canvas, (e) => this.hover(e), () => { this.tooltip.hidden = true; });
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  /** Clears the curves for a run of `total` steps whose uniform guess over `vocabSize` tokens loses `uniformLoss`. */
  reset({ uniformLoss, vocabSize, total }) {
    this.uniform = uniformLoss;
    this.vocabSize = vocabSize;
    this.total = total;
    this.raw = [];
    this.smooth = [];
    this.seconds = []; // each step's training time, when the engine records it
    this.evals = [];
    this.ema = 0;
    this.markers = new Map();
    this.llc = null;
    this.overlays ??= [];
    this.draw();
  }

  /** Marks a step ({step, label}) under `key` with a vertical line, or clears that mark (null). */
  setMarker(key, marker) {
    if (marker) this.markers.set(key, marker);
    else this.markers.delete(key);
    this.scheduleDraw();
  }

  /** The learning coefficient's live curve ({points, turns}, as the engine's milestones carry it), its turns marked. */
  setLlc(curve) {
    this.llc = curve;
    for (const key of [...this.markers.keys()]) if (key.startsWith('llc-')) this.markers.delete(key);
    for (const [key, mark] of turnMarks(curve)) this.markers.set(key, mark);
    this.scheduleDraw();
  }

  /** Whether there are LLC records, so the chart has their axis. */
  hasLlc() {
    return estimates(this.llc).length > 0;
  }

  /** Whether the run reports accuracy (a task's), so the chart has an accuracy axis. */
  hasAccuracy() {
    return this.evals.some((e) => e.val_accuracy != null);
  }

  /** Stretches the step axis to a run that now goes on to `total` steps. */
  setTotal(total) {
    this.total = total;
    this.scheduleDraw();
  }

  /** Each step's loss, and its training time in seconds when there is one (see History.seconds). */
  addLosses(losses, seconds = []) {
    this.ema = smoothInto(this.smooth, losses, this.ema, this.raw.length);
    for (const loss of losses) this.raw.push(loss); // not push(...losses): a long run's would overflow the stack
    if (this.seconds.length + seconds.length === this.raw.length) for (const t of seconds) this.seconds.push(t);
    this.scheduleDraw();
  }

  /** Other runs drawn under this one, for comparing: [{name, colour, history: {losses, evals, seconds?}}]. */
  setOverlays(runs) {
    this.overlays = runs.map(({ name, colour, history }) => {
      const smooth = [];
      smoothInto(smooth, history.losses, 0, 0);
      const seconds = history.seconds?.length === history.losses.length ? history.seconds : [];
      return { name, colour, smooth, seconds, evals: history.evals };
    });
    this.scheduleDraw();
  }

  /** Draws steps across (`steps`) or training time (`time`). */
  setAxis(axis) {
    this.axis = axis;
    this.scheduleDraw();
  }

  /** Whether the chart shows training time across: asked for, and this run has its steps' times. */
  timed() {
    return this.axis === 'time' && this.raw.length > 0 && this.seconds.length === this.raw.length;
  }

  /** Where step `step` of a curve with step times `seconds` sits across. */
  at(seconds, step) {
    return this.timed() ? (step > 0 ? seconds[step - 1] : 0) : step;
  }

  addEvaluation(evaluation) {
    this.evals.push(evaluation);
    this.scheduleDraw();
  }

  /** Steps the step axis spans, this run's or a longer compared one's; or the longest training time. */
  span() {
    if (this.timed()) return Math.max(this.seconds.at(-1), ...this.comparable().map((o) => o.seconds.at(-1)));
    return Math.max(this.total, ...this.overlays.map((o) => o.smooth.length));
  }

  /** The compared runs drawn: all across steps, those with their steps' times across time. */
  comparable() {
    return this.timed() ? this.overlays.filter((o) => o.seconds.length > 0) : this.overlays;
  }

  scheduleDraw() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.draw(); });
  }

  /**
   * The value range shown: everything drawn, but not the first steps' spikes past the uniform
   * line. In loops: a long run has more values than a call can take as arguments.
   */
  yRange() {
    const cap = this.uniform ? this.uniform * 1.3 : Infinity;
    let [lo, hi] = [Infinity, -Infinity];
    const take = (v) => {
      lo = Math.min(lo, v);
      if (v <= cap) hi = Math.max(hi, v);
    };
    this.smooth.forEach(take);
    for (const e of this.evals) [e.val_loss, e.train_loss].forEach(take);
    for (const o of this.overlays) {
      o.smooth.forEach(take);
      o.evals.forEach((e) => take(e.val_loss));
    }
    if (this.uniform) take(this.uniform);
    if (lo === Infinity) return [0, 5];
    return [Math.floor(Math.max(0, lo - 0.15) * 2) / 2, Math.ceil((hi + 0.15) * 2) / 2];
  }

  geometry() {
    const { width, height } = this.canvas.getBoundingClientRect();
    const [lo, hi] = this.yRange();
    const right = PAD.right + (this.hasAccuracy() ? ACCURACY_AXIS : 0) + (this.hasLlc() ? LLC_AXIS : 0);
    const w = width - PAD.left - right;
    const placed = this.placeLegend(this.canvas.getContext('2d'), width - right);
    const top = placed.at(-1).y + 10; // the legend sits above the plot, never over a curve
    const h = height - top - PAD.bottom;
    const span = this.timed() ? this.span() || 1 : Math.max(1, this.span()); // a short run's time is under a second
    return {
      width, height, lo, hi, right: width - right, top, legend: placed,
      x: (step) => PAD.left + (step / span) * w,
      y: (v) => top + (1 - (Math.min(Math.max(v, lo), hi) - lo) / (hi - lo)) * h,
      /** The height of an accuracy in [0, 1] on the right axis. */
      yAccuracy: (a) => top + (1 - a) * h,
      /** The step under pixel `px` across (its time, on the time axis). */
      stepAt: (px) => {
        const value = ((px - PAD.left) / w) * this.span();
        if (!this.timed()) return Math.round(value);
        const i = this.seconds.findIndex((t) => t >= value);
        return i < 0 ? this.seconds.length : i + 1;
      },
    };
  }

  draw() {
    const dpr = window.devicePixelRatio || 1;
    const g = this.geometry();
    if (g.width === 0) return;
    const [width, height] = [Math.round(g.width * dpr), Math.round(g.height * dpr)];
    // Resizing reallocates the canvas's pixels: only when its size changed (clearRect clears it).
    if (this.canvas.width !== width || this.canvas.height !== height) [this.canvas.width, this.canvas.height] = [width, height];
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.width, g.height);
    this.drawAxes(ctx, g);
    if (this.uniform) line(ctx, [[0, this.uniform], [this.span(), this.uniform]], g, COLORS.uniform, 1, [5, 4]);
    if (this.hasAccuracy()) drawAccuracy(ctx, g, this.evals, (s) => this.at(this.seconds, s));
    drawLlc(ctx, g, this.llc, (s) => this.at(this.seconds, s), g.right + (this.hasAccuracy() ? ACCURACY_AXIS : 0));
    for (const o of this.comparable()) {
      series(ctx, o.smooth, g, o.colour, 1.5, [], (i) => this.at(o.seconds, i + 1));
      line(ctx, o.evals.map((e) => [this.at(o.seconds, e.step), e.val_loss]), g, o.colour, 1.5, [4, 3]);
    }
    const mine = (i) => this.at(this.seconds, i + 1);
    series(ctx, this.raw, g, COLORS.raw, 1, [], mine);
    series(ctx, this.smooth, g, COLORS.train, 2, [], mine);
    line(ctx, this.evals.map((e) => [this.at(this.seconds, e.step), e.val_loss]), g, COLORS.val, 2);
    ctx.fillStyle = COLORS.val;
    for (const e of this.evals) {
      ctx.beginPath();
      ctx.arc(g.x(this.at(this.seconds, e.step)), g.y(e.val_loss), 3, 0, 2 * Math.PI);
      ctx.fill();
    }
    // Labels after the curves, so that each reads over them.
    if (this.uniform) {
      ctx.fillStyle = COLORS.uniform;
      ctx.textAlign = 'right';
      haloText(ctx, t('chart.uniform', { vocab: this.vocabSize, loss: decimal(this.uniform, 2) }), g.right, g.y(this.uniform) - 4);
    }
    const marks = [...this.markers.values()];
    const across = (marker) => this.at(this.seconds, marker.step);
    for (const m of marks) line(ctx, [[across(m), g.hi], [across(m), g.lo]], g, COLORS.mark, 1, [4, 3]);
    marks.forEach((marker, i) => {
      ctx.fillStyle = COLORS.mark;
      const x = g.x(across(marker));
      const leftOf = x + ctx.measureText(marker.label).width + 8 > g.right; // a late mark's label stays inside
      ctx.textAlign = leftOf ? 'right' : 'left';
      haloText(ctx, marker.label, leftOf ? x - 4 : x + 4, g.top + 12 + 14 * i);
    });
    legend(ctx, g.legend);
    this.describe();
  }

  drawAxes(ctx, g) {
    ctx.font = FONT;
    ctx.fillStyle = COLORS.axis;
    ctx.strokeStyle = COLORS.grid;
    ctx.lineWidth = 1;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    const stepY = (g.hi - g.lo) > 3 ? 1 : 0.5;
    for (let v = g.lo; v <= g.hi + 1e-9; v += stepY) {
      ctx.beginPath();
      ctx.moveTo(PAD.left, g.y(v));
      ctx.lineTo(g.right, g.y(v));
      ctx.stroke();
      ctx.fillText(decimal(v, 1), PAD.left - 6, g.y(v));
    }
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const span = this.span();
    const timed = this.timed();
    const every = roundStep(timed ? span / 4 : Math.max(1, span / 4)); // whole steps; seconds, or their tenths
    const label = !timed ? String : every < 1 ? (t) => `${+t.toFixed(2)} s` : duration;
    for (let at = 0; at <= span * (1 + 1e-9); at += every) {
      const half = ctx.measureText(label(at)).width / 2; // the last label stays inside the canvas
      ctx.fillText(label(at), Math.min(g.x(at), g.width - half), g.height - PAD.bottom + 6);
    }
    ctx.textBaseline = 'alphabetic';
  }

  /** Where each legend entry goes (`legendLayout`): rows that wrap on a narrow chart. */
  placeLegend(ctx, right) {
    const validation = this.hasAccuracy() ? t('chart.held-out') : t('chart.validation');
    const accuracy = this.hasAccuracy() ? [[t('chart.accuracy-legend'), ACCURACY_COLOR]] : [];
    const llc = this.hasLlc() ? [[t('chart.llc-legend'), LLC_COLOR]] : [];
    const items = [[t('chart.train-smoothed'), COLORS.train], [validation, COLORS.val], ...accuracy, ...llc, ...this.overlays.map((o) => [o.name, o.colour])];
    ctx.font = FONT;
    return legendLayout(ctx, items, PAD.left + 10, PAD.top + 9, right);
  }

  describe() {
    const train = this.smooth.at(-1);
    const last = this.evals.at(-1);
    const val = last?.val_loss;
    if (train === undefined) return void this.canvas.setAttribute('aria-label', t('chart.empty'));
    const parts = [t(this.timed() ? 'chart.label-timed' : 'chart.label', { step: this.raw.length, train: decimal(train, 3) })];
    if (val !== undefined) parts.push(t('chart.label-val', { val: decimal(val, 3) }));
    if (last?.val_accuracy != null) parts.push(t('chart.label-accuracy', { train: percent(last.train_accuracy), val: percent(last.val_accuracy) }));
    if (this.hasLlc()) parts.push(llcLabel(this.llc));
    parts.push(...[...this.markers.values()].map((m) => t('chart.label-marker', { label: m.label, step: m.step })));
    const runs = this.overlays.map((o) => `${o.name} (${decimal(o.smooth.at(-1), 3) ?? t('chart.no-steps')})`).join(', ');
    if (runs) parts.push(t('chart.label-compared', { runs }));
    this.canvas.setAttribute('aria-label', parts.join(''));
  }

  hover(e) {
    if (this.raw.length === 0) return;
    const g = this.geometry();
    const rect = this.canvas.getBoundingClientRect();
    const step = Math.min(Math.max(g.stepAt(e.clientX - rect.left), 1), this.raw.length);
    const nearestEval = this.evals.reduce((best, ev) => (!best || Math.abs(ev.step - step) < Math.abs(best.step - step) ? ev : best), null);
    const at = { step, time: this.timed() ? duration(this.seconds[step - 1]) : '', smooth: decimal(this.smooth[step - 1], 3), raw: decimal(this.raw[step - 1], 3) };
    let text = t(this.timed() ? 'chart.tip-timed' : 'chart.tip', at);
    const across = (s) => g.x(this.at(this.seconds, s));
    if (nearestEval && Math.abs(across(nearestEval.step) - across(step)) < 12) {
      text += t('chart.tip-eval', { step: nearestEval.step, val: decimal(nearestEval.val_loss, 3), train: decimal(nearestEval.train_loss, 3) });
      if (nearestEval.val_accuracy != null) {
        text += t('chart.tip-accuracy', { val: percent(nearestEval.val_accuracy), train: percent(nearestEval.train_accuracy) });
      }
    }
    const llc = llcTip(this.llc, step);
    if (llc && Math.abs(across(llc.step) - across(step)) < 12) text += llc.text;
    showTooltip(this.tooltip, text, rect, e.clientX + 12, e.clientY - 30);
  }
}
