// Heads over time: every head's induction and previous-token score, or its attention entropy, at
// each evaluation, with the step where an induction head formed marked.
import { decimal, t, tParts } from '../i18n.js';
import { AXIS, CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';
import { sentences } from '../format.js';

export class HeadsView extends CanvasView {
  static key = 'heads';
  static get title() { return t('views.heads.title'); }
  static get hint() { return t('views.heads.hint'); }
  static wide = true;

  constructor(figure) {
    const label = document.createElement('label');
    label.className = 'row';
    const score = document.createElement('select');
    score.id = 'heads-score';
    score.append(new Option(t('views.heads.patterns'), 'patterns'), new Option(t('views.heads.entropy'), 'entropy'));
    label.append(...tParts('views.heads.show', { select: score }));
    figure.append(label);
    super(viewCanvas(figure, 'heads-view', t('views.heads.canvas')));
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
    const key = entropy ? items : [...items, [t('views.heads.induction'), AXIS], [t('views.heads.previous'), AXIS, [2, 3]]];
    const box = keyedFrame(ctx, { width, height }, [heads[0].step, Math.max(heads.at(-1).step, 1)], [0, top], key, { xLabel: t('common.step'), yLabel: entropy ? t('views.heads.nats') : '' });
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
      ctx.fillText(t('views.heads.forms', { layer: onset.layer + 1, head: onset.head + 1 }), box.x(onset.step) + 4, box.top + 8);
    }
    this.describe();
  }

  describe() {
    const { scores: heads, n_head: nh, onset } = this.data;
    const last = heads.at(-1);
    const best = (scores) => scores.reduce((b, s, i) => (s > scores[b] ? i : b), 0);
    const name = (i) => t('views.heads.name', { layer: Math.floor(i / nh) + 1, head: (i % nh) + 1 });
    const [ind, prev] = [best(last.induction), best(last.previous_token)];
    const low = last.entropy.reduce((b, e, i) => (e < last.entropy[b] ? i : b), 0);
    const scores = t('views.heads.label', {
      n: heads.length, step: last.step, induction: name(ind), inductionScore: decimal(last.induction[ind], 2), previous: name(prev),
      previousScore: decimal(last.previous_token[prev], 2), focused: name(low), entropy: decimal(last.entropy[low], 2),
    });
    const formed = onset ? t('views.heads.formed', { step: onset.step, name: name(onset.layer * nh + onset.head) }) : t('views.heads.not-yet');
    this.canvas.setAttribute('aria-label', sentences([scores, formed]));
  }
}
