// The MLPs on the probe: per layer, the share of neurons that fire and a histogram of their inputs.
import { t } from '../i18n.js';
import { AXIS, CanvasView, viewCanvas } from './plot.js';

export class MlpView extends CanvasView {
  static key = 'mlp';
  static get title() { return t('views.mlp.title'); }
  static get hint() { return t('views.mlp.hint'); }

  constructor(figure) {
    super(viewCanvas(figure, 'mlp-view', t('views.mlp.title')));
  }

  draw(ctx, { width, height }, { active, histogram, range: [lo, hi] }) {
    const layers = active.length;
    const cols = Math.min(layers, 2);
    const rows = Math.ceil(layers / cols);
    const [cw, ch] = [width / cols, height / rows];
    histogram.forEach((counts, l) => {
      const [x0, y0] = [(l % cols) * cw + 6, Math.floor(l / cols) * ch + 16];
      const [w, h] = [cw - 12, ch - 30];
      const top = Math.max(...counts, 1);
      const bar = w / counts.length;
      counts.forEach((n, b) => {
        ctx.fillStyle = lo + (b + 0.5) * ((hi - lo) / counts.length) > 0 ? '#ea580c' : '#93c5fd';
        ctx.fillRect(x0 + b * bar, y0 + h * (1 - n / top), Math.max(1, bar - 1), h * (n / top));
      });
      ctx.fillStyle = AXIS;
      ctx.textBaseline = 'top';
      ctx.textAlign = 'left';
      ctx.fillText(t('views.mlp.layer-active', { layer: l + 1, percent: Math.round(active[l] * 100) }), x0, y0 - 14);
      ctx.fillText(String(lo), x0, y0 + h + 2);
      ctx.textAlign = 'right';
      ctx.fillText(String(hi), x0 + w, y0 + h + 2);
    });
    this.canvas.setAttribute('aria-label', t('views.mlp.label', { layers: active.map((a, l) => t('views.mlp.label-layer', { layer: l + 1, percent: Math.round(a * 100) })).join(', ') }));
  }
}
