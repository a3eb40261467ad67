// A task's accuracy on the loss chart: training (dotted) and held-out (solid) accuracy at each
// evaluation, on a 0–100% axis at the plot's right edge.
import { line } from './views/plot.js';

export const ACCURACY_COLOR = '#15803d';

/** Draws `evals`' accuracies in the chart's box `g` (its `x`, `right` and `yAccuracy`), across at `across(step)`. */
export function drawAccuracy(ctx, g, evals, across) {
  ctx.fillStyle = ACCURACY_COLOR;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const a of [0, 0.5, 1]) ctx.fillText(`${a * 100}%`, g.right + 6, g.yAccuracy(a));
  ctx.textBaseline = 'alphabetic';
  const box = { x: g.x, y: g.yAccuracy };
  const points = (key) => evals.filter((e) => e[key] != null).map((e) => [across(e.step), e[key]]);
  line(ctx, points('train_accuracy'), box, ACCURACY_COLOR, 1.5, [2, 3]);
  line(ctx, points('val_accuracy'), box, ACCURACY_COLOR, 2);
}
