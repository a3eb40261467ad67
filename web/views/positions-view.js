// Position embeddings: each position's embedding by channel, and the cosine similarity between
// positions. A model with rotary positions (RoPE) has no table to draw, and the view says so.
import { CanvasView, diverging, heatmap, viewCanvas } from './plot.js';

/** What the engine sends for a model without a position table. */
const ROTARY = { rotary: true };
const ROTARY_TEXT = ['This model has no position-embedding table: with rotary positions (RoPE), each head turns',
  'its queries and keys by their position, so attention sees how far apart two tokens are.'];

export class PositionsView extends CanvasView {
  static key = 'positions';
  static title = 'Position embeddings';
  static hint = "Left: each position's embedding (rows) by channel. Right: how alike two positions are (cosine similarity); a bright band along the diagonal means nearby positions look alike.";

  constructor(figure) {
    super(viewCanvas(figure, 'positions-view', 'Position embeddings'));
  }

  update(data) {
    super.update(data ?? ROTARY);
  }

  draw(ctx, size, data) {
    if (data === ROTARY) {
      ctx.fillStyle = '#6b7280';
      ctx.textAlign = 'left';
      ctx.textBaseline = 'top';
      ROTARY_TEXT.forEach((line, i) => ctx.fillText(line, 10, 10 + 16 * i));
      this.canvas.setAttribute('aria-label', ROTARY_TEXT.join(' '));
      return;
    }
    this.drawTable(ctx, size, data);
  }

  drawTable(ctx, { width, height }, { t, c, values, cosine }) {
    const scale = Math.max(...values.map(Math.abs), 1e-9);
    const side = Math.min(height - 30, (width - 40) / 2);
    heatmap(ctx, { rows: t, cols: c, value: (r, k) => values[r * c + k] / scale, color: diverging }, 10, 18, side, side);
    heatmap(ctx, { rows: t, cols: t, value: (a, b) => cosine[a * t + b], color: diverging }, 30 + side, 18, side, side);
    ctx.fillStyle = '#6b7280';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(`position × channel (${t} × ${c})`, 10, 2);
    ctx.fillText('cosine similarity', 30 + side, 2);
    const neighbours = Array.from({ length: t - 1 }, (_, i) => cosine[i * t + i + 1]);
    const mean = neighbours.reduce((a, b) => a + b, 0) / Math.max(1, neighbours.length);
    this.canvas.setAttribute('aria-label', `Position embeddings of ${t} positions by ${c} channels, and their cosine similarities; neighbouring positions have a mean similarity of ${mean.toFixed(2)}`);
  }
}
