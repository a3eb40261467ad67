// The residual stream over the probe's positions: its norm entering each layer and leaving the
// last, and the norms of what each layer's attention and MLP add to it.
import { CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';

export class ResidualView extends CanvasView {
  static key = 'residual';
  static title = 'Residual stream';
  static hint = "The size (L2 norm) of the residual stream after each layer at each probe position (solid), and what each layer's attention (dashed) and MLP (dotted) add to it.";

  constructor(figure) {
    super(viewCanvas(figure, 'residual-view', 'Residual stream'));
  }

  draw(ctx, { width, height }, { t, stream, attn, mlp }) {
    const layers = attn.length / t;
    const series = (values, l) => values.slice(l * t, (l + 1) * t).map((v, i) => [i, v]);
    const names = Array.from({ length: layers + 1 }, (_, l) => [l === 0 ? 'embeddings' : `after layer ${l}`, PALETTE[l % PALETTE.length]]);
    const box = keyedFrame(ctx, { width, height }, [0, t - 1], [0, Math.max(...stream, ...attn, ...mlp) * 1.05], names, { xLabel: 'position', yLabel: 'L2 norm' });
    for (let l = 0; l <= layers; l++) line(ctx, series(stream, l), box, PALETTE[l % PALETTE.length], 2);
    for (let l = 0; l < layers; l++) {
      line(ctx, series(attn, l), box, PALETTE[(l + 1) % PALETTE.length], 1, [5, 3]);
      line(ctx, series(mlp, l), box, PALETTE[(l + 1) % PALETTE.length], 1, [1, 3]);
    }
    const mean = (l) => stream.slice(l * t, (l + 1) * t).reduce((a, b) => a + b, 0) / t;
    this.canvas.setAttribute('aria-label', `Residual stream over ${t} positions: mean norm ${mean(0).toFixed(2)} after the embeddings, ${mean(layers).toFixed(2)} after layer ${layers}`);
  }
}
