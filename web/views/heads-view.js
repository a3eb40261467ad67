// Heads over time: every head's induction and previous-token score, or its attention entropy, at
// each evaluation, with the step where an induction head formed marked.
import { AXIS, CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';

export class HeadsView extends CanvasView {
  static key = 'heads';
  static title = 'Heads over time';
  static hint = 'Each head at each evaluation: its induction score (solid: on random tokens repeated once, how much it attends to what followed the current token last time) and previous-token score (dotted), or the entropy of its attention (high: spread evenly; low: focused). When an induction head forms, the loss often drops; a collapse of entropy can mean unstable training.';
  static wide = true;

  constructor(figure) {
    const label = document.createElement('label');
    label.className = 'row';
    const score = document.createElement('select');
    score.id = 'heads-score';
    score.append(new Option('induction and previous-token scores', 'patterns'), new Option('attention entropy', 'entropy'));
    label.append('Show ', score);
    figure.append(label);
    super(viewCanvas(figure, 'heads-view', 'Head scores'));
    this.score = score;
    score.addEventListener('change', () => this.redraw());
  }

  update(data) {
    super.update(data.scores.length > 0 ? data : null);
  }

  draw(ctx, { width, height }, { scores: heads, n_head: nh, onset }) {
    const entropy = this.score.value === 'entropy';
    // Folded, not spread into Math.max: a long run has more values than a call takes arguments.
    const top = entropy ? heads.reduce((most, h) => h.entropy.reduce((m, e) => Math.max(m, e), most), 1e-3) * 1.1 : 1;
    const count = heads[0].induction.length;
    const items = Array.from({ length: Math.min(count, 8) }, (_, i) => [`L${Math.floor(i / nh) + 1} H${(i % nh) + 1}`, PALETTE[i % PALETTE.length]]);
    const key = entropy ? items : [...items, ['induction', AXIS], ['previous token', AXIS, [2, 3]]];
    const box = keyedFrame(ctx, { width, height }, [heads[0].step, Math.max(heads.at(-1).step, 1)], [0, top], key, { xLabel: 'step', yLabel: entropy ? 'nats' : '' });
    for (let i = 0; i < count; i++) {
      const color = PALETTE[i % PALETTE.length];
      if (entropy) {
        line(ctx, heads.map((h) => [h.step, h.entropy[i]]), box, color, 1.8);
        continue;
      }
      line(ctx, heads.map((h) => [h.step, h.induction[i]]), box, color, 1.8);
      line(ctx, heads.map((h) => [h.step, h.previous_token[i]]), box, color, 1, [2, 3]);
    }
    if (onset) {
      ctx.strokeStyle = '#dc2626';
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(box.x(onset.step), box.top);
      ctx.lineTo(box.x(onset.step), box.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#dc2626';
      ctx.textAlign = 'left';
      ctx.fillText(`induction head L${onset.layer + 1} H${onset.head + 1} forms`, box.x(onset.step) + 4, box.top + 8);
    }
    this.describe();
  }

  describe() {
    const { scores: heads, n_head: nh, onset } = this.data;
    const last = heads.at(-1);
    const best = (scores) => scores.reduce((b, s, i) => (s > scores[b] ? i : b), 0);
    const name = (i) => `layer ${Math.floor(i / nh) + 1} head ${(i % nh) + 1}`;
    const [ind, prev] = [best(last.induction), best(last.previous_token)];
    const low = last.entropy.reduce((b, e, i) => (e < last.entropy[b] ? i : b), 0);
    this.canvas.setAttribute('aria-label', `Head scores at ${heads.length} evaluations, step ${last.step}: strongest induction head ${name(ind)} `
      + `(${last.induction[ind].toFixed(2)}), strongest previous-token head ${name(prev)} (${last.previous_token[prev].toFixed(2)}), `
      + `most focused head ${name(low)} (entropy ${last.entropy[low].toFixed(2)} nats). `
      + (onset ? `An induction head formed at step ${onset.step} (${name(onset.layer * nh + onset.head)}).` : 'No induction head yet.'));
  }
}
