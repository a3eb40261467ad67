// Heads over time: every head's induction and previous-token score, or its attention entropy, at
// each evaluation, with the step where an induction head formed marked; or each head's refined LLC
// at the live LLC's records (crates/gpt/src/inspect/llc_heads.rs), which the worker estimates while
// this is shown and the model is not training (the page's question `heads_llc`).
import { decimal, t, tParts } from '../i18n.js';
import { AXIS, CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';
import { paragraph } from './grid.js';
import { sentences } from '../format.js';

export class HeadsView extends CanvasView {
  static key = 'heads';
  static get title() { return t('views.heads.title'); }
  static get hint() { return t('views.heads.hint'); }
  static wide = true;

  constructor(figure, { ask }) {
    const label = document.createElement('label');
    label.className = 'row';
    const score = document.createElement('select');
    score.id = 'heads-score';
    const shows = [['patterns', t('views.heads.patterns')], ['entropy', t('views.heads.entropy')], ['llc', t('views.heads.llc')]];
    score.append(...shows.map(([value, name]) => new Option(name, value)));
    label.append(...tParts('views.heads.show', { select: score }));
    figure.append(label);
    super(viewCanvas(figure, 'heads-view', t('views.heads.canvas')));
    this.status = paragraph('readout');
    this.status.id = 'heads-llc-status';
    this.status.setAttribute('aria-live', 'polite');
    figure.append(this.status);
    this.score = score;
    score.addEventListener('change', () => {
      ask({ heads_llc: score.value === 'llc' });
      this.redraw();
    });
  }

  update(data) {
    super.update(data.scores.length > 0 ? data : null);
  }

  draw(ctx, size, { scores: heads, n_head: nh, onset, llc, llc_pending: pending }) {
    const shown = this.score.value;
    this.status.textContent = shown === 'llc' ? llcStatus(llc, pending) : '';
    const count = heads[0].induction.length;
    const items = Array.from({ length: Math.min(count, 8) }, (_, i) => [`L${Math.floor(i / nh) + 1} H${(i % nh) + 1}`, PALETTE[i % PALETTE.length]]);
    const steps = [heads[0].step, Math.max(heads.at(-1).step, 1)];
    const box = shown === 'llc' ? drawLlc(ctx, size, steps, items, llc, count) : drawScores(ctx, size, steps, items, heads, shown === 'entropy');
    if (onset) {
      ctx.strokeStyle = '#dc2626';
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(box.x(onset.step), box.top);
      ctx.lineTo(box.x(onset.step), box.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#dc2626';
      // Right of the mark, or left of it where the plot ends first (a phone's narrow chart).
      const said = t('views.heads.forms', { layer: onset.layer + 1, head: onset.head + 1 });
      const fits = box.x(onset.step) + 4 + ctx.measureText(said).width <= box.right;
      ctx.textAlign = fits ? 'left' : 'right';
      ctx.fillText(said, box.x(onset.step) + (fits ? 4 : -4), box.top + 8);
    }
    this.describe();
  }

  describe() {
    const { scores: heads, n_head: nh, onset, llc } = this.data;
    const last = heads.at(-1);
    const best = (scores) => scores.reduce((b, s, i) => (s > scores[b] ? i : b), 0);
    const name = (i) => t('views.heads.name', { layer: Math.floor(i / nh) + 1, head: (i % nh) + 1 });
    const formed = onset ? t('views.heads.formed', { step: onset.step, name: name(onset.layer * nh + onset.head) }) : t('views.heads.not-yet');
    if (this.score.value === 'llc') {
      const point = llc.at(-1);
      const means = point?.mean.map((m) => m ?? -Infinity);
      const top = means && best(means);
      const said = point ? t('views.heads.llc-label', { n: llc.length, step: point.step, name: name(top), value: decimal(means[top], 2) }) : '';
      this.canvas.setAttribute('aria-label', sentences([said || t('views.heads.llc-none'), formed]));
      return;
    }
    const [ind, prev] = [best(last.induction), best(last.previous_token)];
    const low = last.entropy.reduce((b, e, i) => (e < last.entropy[b] ? i : b), 0);
    const scores = t('views.heads.label', {
      n: heads.length, step: last.step, induction: name(ind), inductionScore: decimal(last.induction[ind], 2), previous: name(prev),
      previousScore: decimal(last.previous_token[prev], 2), focused: name(low), entropy: decimal(last.entropy[low], 2),
    });
    this.canvas.setAttribute('aria-label', sentences([scores, formed]));
  }
}

/** Each head's induction and previous-token scores (dotted), or its entropy, at each evaluation. */
function drawScores(ctx, size, steps, items, heads, entropy) {
  // Folded, not spread into Math.max: a long run has more values than a call takes arguments.
  const top = entropy ? heads.reduce((most, h) => h.entropy.reduce((m, e) => Math.max(m, e), most), 1e-3) * 1.1 : 1;
  const key = entropy ? items : [...items, [t('views.heads.induction'), AXIS], [t('views.heads.previous'), AXIS, [2, 3]]];
  const box = keyedFrame(ctx, size, steps, [0, top], key, { xLabel: t('common.step'), yLabel: entropy ? t('views.heads.nats') : '' });
  for (let i = 0; i < heads[0].induction.length; i++) {
    const color = PALETTE[i % PALETTE.length];
    if (entropy) {
      line(ctx, heads.map((h) => [h.step, h.entropy[i]]), box, color, 1.8);
      continue;
    }
    line(ctx, heads.map((h) => [h.step, h.induction[i]]), box, color, 1.8);
    line(ctx, heads.map((h) => [h.step, h.previous_token[i]]), box, color, 1, [2, 3]);
  }
  return box;
}

/** Each head's LLC at the records estimated so far, a dot at each. */
function drawLlc(ctx, size, steps, items, llc, count) {
  const means = llc.flatMap((p) => p.mean).filter((m) => m !== null);
  const [low, high] = [means.reduce((a, m) => Math.min(a, m), 0), means.reduce((a, m) => Math.max(a, m), 1e-3)];
  const box = keyedFrame(ctx, size, steps, [low, high * 1.1], items, { xLabel: t('common.step'), yLabel: t('views.heads.llc-axis') });
  for (let i = 0; i < count; i++) {
    const points = llc.filter((p) => p.mean[i] !== null).map((p) => [p.step, p.mean[i]]);
    line(ctx, points, box, PALETTE[i % PALETTE.length], 1.8);
    ctx.fillStyle = PALETTE[i % PALETTE.length];
    for (const [x, y] of points) ctx.fillRect(box.x(x) - 2, box.y(y) - 2, 4, 4);
  }
  return box;
}

/** What the LLC's curves wait for, or what they are. */
function llcStatus(llc, pending) {
  if (pending > 0) return t('views.heads.llc-waiting', { n: pending });
  return llc.length > 0 ? t('views.heads.llc-setting') : t('views.heads.llc-none');
}
