// Token embeddings in 2-D: each token at its coordinates on the embeddings' top two principal
// components, labelled.
import { tokenLabel } from '../format.js';
import { CanvasView, frame, viewCanvas } from './plot.js';

/** Labels past this many would pile up into a blot. */
const MAX_LABELS = 300;

export class EmbeddingsView extends CanvasView {
  static key = 'embeddings';
  static title = 'Token embeddings (PCA)';
  static hint = "Each token's embedding projected on its two main directions: tokens used alike drift together.";

  constructor(figure) {
    super(viewCanvas(figure, 'embeddings-view', 'Token embeddings'));
  }

  draw(ctx, { width, height }, { tokens, points, explained }) {
    const span = (axis) => {
      const values = points.map((p) => p[axis]);
      const [lo, hi] = [Math.min(...values), Math.max(...values)];
      const pad = (hi - lo) * 0.08 || 1;
      return [lo - pad, hi + pad];
    };
    const share = (i) => `${Math.round((explained[i] ?? 0) * 100)}% of variance`;
    const box = frame(ctx, { width, height }, span(0), span(1), { xLabel: `PC1, ${share(0)}`, yLabel: `PC2, ${share(1)}` });
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
    this.canvas.setAttribute('aria-label', `Token embeddings of ${tokens.length} tokens on their top two principal components, which explain ${share(0)} and ${share(1)}`);
  }
}
