// Grokking's progress measures (Nanda et al. 2023), for modular addition: the number embeddings'
// norm at each frequency, the key frequencies, and the restricted and excluded losses over
// training beside the plain ones.
import { decimal, t } from '../i18n.js';
import { CanvasView, PALETTE, frame, keyedFrame, line, viewCanvas } from './plot.js';
import { paragraph } from './grid.js';

class Spectrum extends CanvasView {
  draw(ctx, size, { norms, key }) {
    const top = Math.max(...norms.slice(1), 1e-6) * 1.1;
    const n = norms.length - 1;
    const box = frame(ctx, size, [0.5, n + 0.5], [0, top], { xLabel: t('views.fourier.frequency'), yLabel: t('views.fourier.norm') });
    const w = Math.max(1, (box.right - box.left) / n - 1);
    for (let k = 1; k <= n; k++) {
      ctx.fillStyle = key.includes(k) ? PALETTE[1] : '#c7ccd4';
      ctx.fillRect(box.x(k) - w / 2, box.y(norms[k]), w, box.bottom - box.y(norms[k]));
    }
    ctx.fillStyle = PALETTE[1];
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    key.forEach((k) => ctx.fillText(String(k), box.x(k), box.y(norms[k]) - 1));
    this.canvas.setAttribute('aria-label', t('views.fourier.spectrum-label', { n, key: key.join(', ') || t('views.fourier.none-yet') }));
  }
}

const SERIES = [
  [() => t('views.fourier.train'), 'train_loss', PALETTE[0], []], [() => t('views.fourier.held-out'), 'test_loss', PALETTE[2], []],
  [() => t('views.fourier.restricted'), 'restricted_loss', PALETTE[1], [5, 3]], [() => t('views.fourier.excluded'), 'excluded_loss', PALETTE[3], [2, 3]],
];

class Losses extends CanvasView {
  draw(ctx, size, history) {
    const top = Math.max(...history.flatMap((p) => SERIES.map(([, field]) => p[field])).filter(Number.isFinite), 1e-3) * 1.05;
    const items = SERIES.map(([label, , color, dash]) => [label(), color, dash]);
    const box = keyedFrame(ctx, size, [history[0].step, Math.max(history.at(-1).step, 1)], [0, top], items, { xLabel: t('common.step'), yLabel: t('views.fourier.loss') });
    for (const [, field, color, dash] of SERIES) line(ctx, history.map((p) => [p.step, p[field]]), box, color, 1.8, dash);
    const last = history.at(-1);
    const losses = SERIES.map(([label, field]) => t('views.fourier.series', { label: label(), loss: decimal(last[field], 3) })).join(', ');
    this.canvas.setAttribute('aria-label', t('views.fourier.losses-label', { n: history.length, step: last.step, losses }));
  }
}

export class FourierView {
  static key = 'fourier';
  static get title() { return t('views.fourier.title'); }
  static get hint() { return t('views.fourier.hint'); }
  static wide = true;

  constructor(figure) {
    this.summary = paragraph('readout');
    this.summary.id = 'fourier-summary';
    figure.append(this.summary);
    this.spectrum = new Spectrum(viewCanvas(figure, 'fourier-spectrum', t('views.fourier.spectrum')));
    this.losses = new Losses(viewCanvas(figure, 'fourier-losses', t('views.fourier.losses')));
  }

  update(data) {
    if (!data) {
      this.summary.textContent = t('views.fourier.only-modular');
      this.spectrum.update(null);
      this.losses.update(null);
      return;
    }
    const { now, history } = data;
    this.summary.textContent = t('views.fourier.summary', {
      step: now.step, key: now.key.length ? now.key.join(', ') : t('views.fourier.none-yet'), restricted: decimal(now.restricted_loss, 3),
      excluded: decimal(now.excluded_loss, 3), heldOut: decimal(now.test_loss, 3),
    });
    this.spectrum.update(now);
    this.losses.update(history.length > 0 ? history : null);
  }
}
