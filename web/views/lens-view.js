// Softmax under temperature, on the real model, and the logit lens: both for the prompt.
import { tokenLabel } from '../format.js';
import { AXIS, CanvasView, PALETTE, legend } from './plot.js';

const percent = (p) => `${(p * 100).toFixed(1)}%`;

export class TemperatureView extends CanvasView {
  pick({ temperatures }) {
    return temperatures;
  }

  draw(ctx, { width, height }, { temperatures, tokens, probs }) {
    const [left, top, bottom] = [10, 24, height - 20];
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
    legend(ctx, temperatures.map((t, k) => [`T = ${t}`, PALETTE[k]]), left + 4, 10);
    const first = (k) => `${percent(probs[k][0])} at T = ${temperatures[k]}`;
    this.canvas.setAttribute('aria-label', `Next-token probabilities at temperatures ${temperatures.join(', ')}: the likeliest token “${tokenLabel(tokens[0] ?? '')}” has ${temperatures.map((_, k) => first(k)).join(', ')}`);
  }
}

export class LensView {
  constructor(table) {
    this.table = table;
  }

  update({ lens }) {
    const caption = this.table.querySelector('caption');
    const rows = lens.map((guesses, l) => {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = l === 0 ? 'embeddings' : l === lens.length - 1 ? `layer ${l} (output)` : `layer ${l}`;
      tr.append(th, ...guesses.map(({ token, prob }) => {
        const td = document.createElement('td');
        const share = document.createElement('span');
        share.textContent = ` ${percent(prob)}`;
        td.append(tokenLabel(token), share);
        return td;
      }));
      return tr;
    });
    this.table.replaceChildren(caption, ...rows);
  }
}
