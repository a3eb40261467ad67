// Position embeddings: each position's embedding by channel, and the cosine similarity between
// positions. A model with rotary positions (RoPE) has no table to draw, and the view says so.
import { decimal, t } from '../i18n.js';
import { CanvasView, diverging, heatmap, viewCanvas } from './plot.js';
import { paragraph } from './grid.js';

export class PositionsView extends CanvasView {
  static key = 'positions';
  static get title() { return t('views.positions.title'); }
  static get hint() { return t('views.positions.hint'); }

  constructor(figure) {
    const note = paragraph('readout');
    note.id = 'positions-note';
    note.hidden = true;
    figure.append(note);
    super(viewCanvas(figure, 'positions-view', t('views.positions.title')));
    this.note = note;
  }

  /** The engine sends no table for a model with rotary positions: the view says why, and nothing else. */
  update(data) {
    this.note.hidden = Boolean(data);
    this.note.textContent = data ? '' : t('views.positions.rotary');
    super.update(data);
  }

  draw(ctx, { width, height }, { t: positions, c, values, cosine }) {
    const scale = Math.max(...values.map(Math.abs), 1e-9);
    const side = Math.min(height - 30, (width - 40) / 2);
    heatmap(ctx, { rows: positions, cols: c, value: (r, k) => values[r * c + k] / scale, color: diverging }, 10, 18, side, side);
    heatmap(ctx, { rows: positions, cols: positions, value: (a, b) => cosine[a * positions + b], color: diverging }, 30 + side, 18, side, side);
    ctx.fillStyle = '#6b7280';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(t('views.positions.table', { positions, channels: c }), 10, 2);
    ctx.fillText(t('views.positions.cosine'), 30 + side, 2);
    const neighbours = Array.from({ length: positions - 1 }, (_, i) => cosine[i * positions + i + 1]);
    const mean = neighbours.reduce((a, b) => a + b, 0) / Math.max(1, neighbours.length);
    this.canvas.setAttribute('aria-label', t('views.positions.label', { positions, channels: c, mean: decimal(mean, 2) }));
  }
}
