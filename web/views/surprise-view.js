// Per-token surprise: the probe's tokens coloured by the loss of predicting each, with the
// model's five likeliest guesses there on hover or focus; below, the mean loss by position.
import { decimal, t } from '../i18n.js';
import { tokenLabel } from '../format.js';
import { onPoint, showTooltip } from '../pointing.js';
import { frame, line, prepare, viewCanvas } from './plot.js';

/** Loss 0 → white, `worst` (a uniform guess) or more → deep orange. */
function shade(loss, worst) {
  const s = Math.min(Math.max(loss / worst, 0), 1);
  return `rgb(${Math.round(255 - s * 21)}, ${Math.round(255 - s * 140)}, ${Math.round(255 - s * 220)})`;
}

const percent = (p) => `${decimal(p * 100, 1)}%`;

export class SurpriseView {
  static key = 'surprise';
  static get title() { return t('views.surprise.title'); }
  static get hint() { return t('views.surprise.hint'); }
  static wide = true;

  /** `shared`: the section's `tooltip`, and `uniformLoss()` of the model, the darkest shade. */
  constructor(figure, { tooltip, uniformLoss }) {
    this.text = document.createElement('div');
    this.text.id = 'surprise-text';
    this.text.className = 'surprise';
    this.text.setAttribute('role', 'group');
    this.text.setAttribute('aria-label', t('views.surprise.tokens'));
    figure.append(this.text);
    this.canvas = viewCanvas(figure, 'position-loss-view', t('views.surprise.by-position'));
    Object.assign(this, { tooltip, uniformLoss });
    this.byPosition = [];
    new ResizeObserver(() => this.drawPositions()).observe(this.canvas);
  }

  update({ probe, loss_by_position: byPosition }) {
    const uniformLoss = this.uniformLoss();
    this.text.replaceChildren(...probe.map(({ token, loss, guesses }) => {
      const span = document.createElement('span');
      span.textContent = token;
      span.tabIndex = 0;
      span.setAttribute('role', 'img'); // a coloured tile whose name says its loss and guesses
      const guessed = () => guesses.map((g) => t('views.surprise.guess', { token: tokenLabel(g.token), percent: percent(g.prob) })).join(', ');
      const what = loss == null ? t('views.surprise.first') : t('views.surprise.loss', { loss: decimal(loss, 2), guesses: guessed() });
      span.setAttribute('aria-label', t('views.surprise.tile', { token: tokenLabel(token), what }));
      if (loss != null) span.style.background = shade(loss, uniformLoss);
      const show = () => this.show(span, what);
      onPoint(span, show, () => { this.tooltip.hidden = true; });
      span.addEventListener('focus', show);
      span.addEventListener('blur', () => { this.tooltip.hidden = true; });
      return span;
    }));
    const losses = probe.map((p) => p.loss).filter((l) => l != null);
    const mean = losses.reduce((a, b) => a + b, 0) / Math.max(1, losses.length);
    this.text.setAttribute('aria-label', t('views.surprise.tokens-label', { mean: decimal(mean, 2), n: losses.length }));
    this.byPosition = byPosition;
    this.drawPositions();
  }

  show(span, what) {
    this.tooltip.hidden = false; // placed in its offset parent, which it has once shown
    const host = this.tooltip.offsetParent?.getBoundingClientRect() ?? { left: 0, top: 0 };
    const box = span.getBoundingClientRect();
    showTooltip(this.tooltip, what, host, box.left, box.bottom + 4);
  }

  drawPositions() {
    const { ctx, width, height } = prepare(this.canvas);
    const losses = this.byPosition;
    if (losses.length === 0 || width === 0) {
      this.canvas.setAttribute('aria-label', t('views.surprise.needs-text'));
      return;
    }
    const box = frame(ctx, { width, height }, [0, losses.length - 1], [0, Math.max(...losses) * 1.05], { xLabel: t('views.surprise.x'), yLabel: t('views.surprise.y') });
    line(ctx, losses.map((l, i) => [i, l]), box, '#ea580c', 2);
    this.canvas.setAttribute('aria-label', t('views.surprise.label', { first: decimal(losses[0], 2), last: decimal(losses.at(-1), 2) }));
  }
}
