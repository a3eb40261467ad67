// Token embeddings in 2-D: each token at its coordinates on the embeddings' top two principal
// components, labelled.
import { t } from '../i18n.js';
import { tokenLabel } from '../format.js';
import { CanvasView, frame, viewCanvas } from './plot.js';

/** Labels past this many would pile up into a blot. */
const MAX_LABELS = 300;

export class EmbeddingsView extends CanvasView {
  static key = 'embeddings';
  static get title() { return t('views.embeddings.title'); }
  static get hint() { return t('views.embeddings.hint'); }

  constructor(figure) {
    super(viewCanvas(figure, 'embeddings-view', t('views.embeddings.canvas')));
  }

  draw(ctx, { width, height }, { tokens, points, explained }) {
    const span = (axis) => {
      const values = points.map((p) => p[axis]);
      const [lo, hi] = [Math.min(...values), Math.max(...values)];
      const pad = (hi - lo) * 0.08 || 1;
      return [lo - pad, hi + pad];
    };
    const share = (i) => t('views.embeddings.share', { percent: Math.round((explained[i] ?? 0) * 100) });
    const box = frame(ctx, { width, height }, span(0), span(1), { xLabel: t('views.embeddings.axis', { n: 1, share: share(0) }), yLabel: t('views.embeddings.axis', { n: 2, share: share(1) }) });
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    points.forEach(([x, y], i) => {
      if (i < MAX_LABELS) {
        ctx.fillStyle = '#1d4ed8';
        ctx.fillText(tokenLabel(tokens[i]), box.x(x), box.y(y));
      } else {
        ctx.fillStyle = 'rgba(37, 99, 235, 0.35)';
        ctx.fillRect(box.x(x) - 1, box.y(y) - 1, 2, 2);
      }
    });
    this.canvas.setAttribute('aria-label', t('views.embeddings.label', { tokens: tokens.length, first: share(0), second: share(1) }));
  }
}
