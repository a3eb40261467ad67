// The residual stream over the probe's positions: its norm entering each layer and leaving the
// last, and the norms of what each layer's attention and MLP add to it.
import { decimal, t } from '../i18n.js';
import { CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';

export class ResidualView extends CanvasView {
  static key = 'residual';
  static get title() { return t('views.residual.title'); }
  static get hint() { return t('views.residual.hint'); }

  constructor(figure) {
    super(viewCanvas(figure, 'residual-view', t('views.residual.title')));
  }

  draw(ctx, { width, height }, { t: positions, stream, attn, mlp }) {
    const layers = attn.length / positions;
    const series = (values, l) => values.slice(l * positions, (l + 1) * positions).map((v, i) => [i, v]);
    const names = Array.from({ length: layers + 1 }, (_, l) => [
      l === 0 ? t('views.residual.embeddings') : t('views.residual.after-layer', { layer: l }), PALETTE[l % PALETTE.length],
    ]);
    const labels = { xLabel: t('views.residual.position'), yLabel: t('views.residual.norm') };
    const box = keyedFrame(ctx, { width, height }, [0, positions - 1], [0, Math.max(...stream, ...attn, ...mlp) * 1.05], names, labels);
    for (let l = 0; l <= layers; l++) line(ctx, series(stream, l), box, PALETTE[l % PALETTE.length], 2);
    for (let l = 0; l < layers; l++) {
      line(ctx, series(attn, l), box, PALETTE[(l + 1) % PALETTE.length], 1, [5, 3]);
      line(ctx, series(mlp, l), box, PALETTE[(l + 1) % PALETTE.length], 1, [1, 3]);
    }
    const mean = (l) => stream.slice(l * positions, (l + 1) * positions).reduce((a, b) => a + b, 0) / positions;
    this.canvas.setAttribute('aria-label', t('views.residual.label', { positions, first: decimal(mean(0), 2), last: decimal(mean(layers), 2), layers }));
  }
}
