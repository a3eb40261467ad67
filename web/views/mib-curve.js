// MIB's scores of each ranking (crates/gpt/src/inspect/circuit/mib.rs): the faithfulness of its
// top edges at MIB's shares of the graph, the area under each curve shaded (its CPR), on the same
// linear axis MIB's trapezoid rule takes them.
import { decimal, t } from '../i18n.js';
import { clauses } from '../format.js';
import { CanvasView, PALETTE, keyedFrame, line } from './plot.js';

export class MibCurve extends CanvasView {
  /** `circuits` as the view found them, each ranking's drawn in its color there, by `names`. */
  draw(ctx, size, { circuits, names }) {
    const ranked = circuits.map((c, i) => ({ c, color: PALETTE[i] })).filter(({ c }) => c.mib);
    const items = ranked.map(({ c, color }) => [names[c.method](), color]);
    const ys = ranked.flatMap(({ c }) => c.mib.signed.faithfulness);
    const box = keyedFrame(ctx, size, [0, 1], [Math.min(0, ...ys), Math.max(1.05, ...ys)], items, { xLabel: t('views.circuit.share-of-edges'), yLabel: t('views.circuit.share-kept') });
    for (const { c, color } of ranked) {
      const points = c.mib.signed.shares.map((s, j) => [s, c.mib.signed.faithfulness[j]]);
      ctx.beginPath();
      ctx.moveTo(box.x(points[0][0]), box.y(0));
      for (const [x, y] of points) ctx.lineTo(box.x(x), box.y(y));
      ctx.lineTo(box.x(points.at(-1)[0]), box.y(0));
      ctx.closePath();
      ctx.globalAlpha = 0.12;
      ctx.fillStyle = color;
      ctx.fill();
      ctx.globalAlpha = 1;
      line(ctx, points, box, color, 2);
    }
    const ways = ranked.map(({ c }) => t('views.circuit.mib-way', { method: names[c.method](), cpr: decimal(c.mib.cpr, 2), cmd: decimal(c.mib.cmd, 2) }));
    this.canvas.setAttribute('aria-label', t('views.circuit.mib-label', { ways: clauses(ways) }));
  }
}

/** What MIB's scores say of `circuits` on a graph of `total` edges, in sentences. */
export function mibSummary(circuits, total, names) {
  const ranked = circuits.filter((c) => c.mib);
  if (!ranked.length) return [];
  const ways = ranked.map((c) => t('views.circuit.mib-way', { method: names[c.method](), cpr: decimal(c.mib.cpr, 2), cmd: decimal(c.mib.cmd, 2) }));
  // The shares too small to hold one edge of this graph, whatever the ranking.
  const { shares } = ranked[0].mib.signed;
  const empty = shares.filter((s) => Math.floor(s * total) === 0).length;
  const below = 100 * shares[empty];
  const share = `${decimal(below, below < 1 ? 1 : 0)}%`;
  const small = empty ? [t('views.circuit.mib-small', { total, n: empty, share })] : [];
  return [t('views.circuit.mib', { ways: clauses(ways) }), ...small];
}
