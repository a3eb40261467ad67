// The logit lens: the likeliest next tokens after the prompt's last token, read off each layer.
import { tokenLabel } from '../format.js';

const percent = (p) => `${(p * 100).toFixed(1)}%`;

export class LensView {
  static key = 'lens';
  static title = 'Logit lens';
  static hint = "The likeliest next tokens after the prompt's last token, read off the residual stream after each layer as if it were the last (nostalgebraist's logit lens). The bottom row is the model's prediction.";

  constructor(figure) {
    this.table = document.createElement('table');
    this.table.id = 'lens-view';
    this.table.className = 'lens';
    const caption = document.createElement('caption');
    caption.className = 'visually-hidden';
    caption.textContent = 'Likeliest next tokens read off each layer';
    this.table.append(caption);
    figure.append(this.table);
  }

  update(lens) {
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
