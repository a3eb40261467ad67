// The learning coefficient's live records on the loss chart: points joined by a line, each with
// its spread over the chains as a bar, on an axis of their own at the chart's right edge; the
// curve's turns (from the engine) are marked beside the chart's other marks.
import { decimal, t } from './i18n.js';
import { line, roundStep } from './views/plot.js';

export const LLC_COLOR = '#9333ea';
/** Room for the LLC axis's labels. */
export const LLC_AXIS = 34;

/** The records that have a mean (a record whose every chain diverged has none). */
export const estimates = (curve) => (curve?.points ?? []).filter((p) => p.mean != null);

/** The LLC axis's top value: a round number above every estimate and its spread. */
function top(points) {
  const high = Math.max(1, ...points.map((p) => p.mean + p.std));
  const every = roundStep(high / 4);
  return Math.ceil(high / every) * every;
}

/**
 * Draws `curve`'s records in the box `g` (its `x`, `top` and bottom `yAccuracy(0)`), across at
 * `across(step)`, with the axis's labels from `axisX`.
 */
export function drawLlc(ctx, g, curve, across, axisX) {
  const points = estimates(curve);
  if (points.length === 0) return;
  const max = top(points);
  const y = (v) => g.yAccuracy(Math.min(Math.max(v, 0), max) / max);
  ctx.fillStyle = LLC_COLOR;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const v of [0, max / 2, max]) ctx.fillText(decimal(v, v < 10 ? 1 : 0), axisX + 4, y(v));
  ctx.textBaseline = 'alphabetic';
  line(ctx, points.map((p) => [across(p.step), p.mean]), { x: g.x, y }, LLC_COLOR, 1.5);
  ctx.strokeStyle = LLC_COLOR;
  for (const p of points) {
    const x = g.x(across(p.step));
    ctx.beginPath();
    ctx.moveTo(x, y(p.mean - p.std));
    ctx.lineTo(x, y(p.mean + p.std));
    ctx.stroke();
    ctx.beginPath();
    ctx.arc(x, y(p.mean), 3, 0, 2 * Math.PI);
    ctx.fill();
  }
}

/** The chart's marks for the curve's turns, keyed for `setMarker`: a peak or trough at its step. */
export function turnMarks(curve) {
  return (curve?.turns ?? []).map((turn, i) => {
    const value = decimal(turn.value, 1);
    const label = turn.kind === 'peak' ? t('train.marker-llc-peak', { value }) : t('train.marker-llc-trough', { value });
    return [`llc-${i}`, { step: turn.step, label }];
  });
}

/** The record nearest `step`, if any, as a tooltip line: its estimate, and its chains that diverged. */
export function llcTip(curve, step) {
  const nearest = (curve?.points ?? []).reduce((best, p) => (!best || Math.abs(p.step - step) < Math.abs(best.step - step) ? p : best), null);
  if (!nearest) return null;
  const [llc, spread] = nearest.mean == null ? ['—', '—'] : [decimal(nearest.mean, 2), decimal(nearest.std, 2)]; // every chain diverged
  const estimate = t('chart.tip-llc', { step: nearest.step, llc, spread });
  const diverged = nearest.diverged > 0 ? t('chart.tip-llc-diverged', { count: nearest.diverged }) : '';
  return { step: nearest.step, text: estimate + diverged };
}

/** The last record, for the chart's description. */
export function llcLabel(curve) {
  const last = estimates(curve).at(-1);
  return last ? t('chart.label-llc', { step: last.step, llc: decimal(last.mean, 2) }) : '';
}
