// Softmax under temperature, on the real model: the next-token distribution after the prompt.
import { decimal, t } from '../i18n.js';
import { tokenLabel } from '../format.js';
import { AXIS, CanvasView, PALETTE, belowLegend, legend, legendLayout, viewCanvas } from './plot.js';

const percent = (p) => `${decimal(p * 100, 1)}%`;

export class TemperatureView extends CanvasView {
  static key = 'temperatures';
  static get title() { return t('views.temperatures.title'); }
  static get hint() { return t('views.temperatures.hint'); }

  constructor(figure) {
    super(viewCanvas(figure, 'temperature-view', t('views.temperatures.canvas')));
  }

  draw(ctx, { width, height }, { temperatures, tokens, probs }) {
    const left = 10;
    const placed = legendLayout(ctx, temperatures.map((t, k) => [`T = ${t}`, PALETTE[k]]), left + 4, 10, width - 4);
    const [top, bottom] = [belowLegend(placed), height - 20];
    const group = (width - 2 * left) / tokens.length;
    const bar = (group - 6) / temperatures.length;
    const highest = Math.max(...probs.flat(), 1e-9);
    probs.forEach((row, k) => row.forEach((p, i) => {
      ctx.fillStyle = PALETTE[k];
      const h = (bottom - top) * (p / highest);
      ctx.fillRect(left + i * group + k * bar, bottom - h, bar - 1, h);
    }));
    ctx.fillStyle = AXIS;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    tokens.forEach((token, i) => ctx.fillText(tokenLabel(token).slice(0, 6), left + (i + 0.5) * group, bottom + 4));
    legend(ctx, placed);
    const first = (k) => t('views.temperatures.at', { percent: percent(probs[k][0]), temperature: temperatures[k] });
    const shares = temperatures.map((_, k) => first(k)).join(', ');
    this.canvas.setAttribute('aria-label', t('views.temperatures.label', { temperatures: temperatures.join(', '), token: tokenLabel(tokens[0] ?? ''), shares }));
  }
}
