// The autoencoder's training loss, step by step: a small chart beside its measures, kept across a
// reload (the checkpoint keeps the losses with the autoencoder).
import { decimal, t } from './i18n.js';
import { PALETTE, frame, prepare, series } from './views/plot.js';

export class FeaturesCurve {
  constructor(figure) {
    this.figure = figure;
    this.canvas = figure.querySelector('canvas');
    this.losses = [];
    new ResizeObserver(() => this.draw()).observe(this.canvas);
  }

  /** Starts again with `losses` (a new autoencoder's none, a reopened one's every step). */
  reset(losses = []) {
    this.losses = [...losses];
    this.draw();
  }

  /** The steps since the last report. */
  add(losses) {
    this.losses.push(...losses);
    this.draw();
  }

  draw() {
    const { losses, canvas } = this;
    this.figure.hidden = losses.length === 0;
    if (this.figure.hidden) return;
    const { ctx, width, height } = prepare(canvas);
    if (width === 0) return;
    const top = Math.max(...losses.slice(Math.min(5, losses.length - 1))) * 1.05; // the first few steps' spike, cut
    const box = frame(ctx, { width, height }, [1, Math.max(2, losses.length)], [0, top], { xLabel: t('common.step') });
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.left, box.top, box.right - box.left, box.bottom - box.top);
    ctx.clip();
    series(ctx, losses, box, PALETTE[0]);
    ctx.restore();
    const last = losses.at(-1);
    canvas.setAttribute('aria-label', t('features.curve-label', { steps: losses.length, first: decimal(losses[0], 4), last: decimal(last, 4) }));
  }
}
