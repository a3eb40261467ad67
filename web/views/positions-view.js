// Position embeddings: each position's embedding by channel, and the cosine similarity between
// positions. A model with rotary positions (RoPE) has no table to draw, and the view says so.
import { CanvasView, diverging, heatmap, viewCanvas } from './plot.js';
import { paragraph } from './grid.js';

const ROTARY = 'This model has no position-embedding table: with rotary positions (RoPE), each head turns '
  + 'its queries and keys by their position, so attention sees how far apart two tokens are.';

export class PositionsView extends CanvasView {
  static key = 'positions';
  static title = 'Position embeddings';
  static hint = "Left: each position's embedding (rows) by channel. Right: how alike two positions are (cosine similarity); a bright band along the diagonal means nearby positions look alike.";

  constructor(figure) {
    const note = paragraph('readout');
    note.id = 'positions-note';
    note.hidden = true;
    figure.append(note);
    super(viewCanvas(figure, 'positions-view', 'Position embeddings'));
    this.note = note;
  }

  /** The engine sends no table for a model with rotary positions: the view says why, and nothing else. */
  update(data) {
    this.note.hidden = Boolean(data);
    this.note.textContent = data ? '' : ROTARY;
    super.update(data);
  }

  draw(ctx, { width, height }, { t, c, values, cosine }) {
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
