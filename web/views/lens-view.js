// The logit lens: the likeliest next tokens after the prompt's last token, read off each layer.
import { decimal, t } from '../i18n.js';
import { tokenLabel } from '../format.js';

const percent = (p) => `${decimal(p * 100, 1)}%`;

export class LensView {
  static key = 'lens';
  static get title() { return t('views.lens.title'); }
  static get hint() { return t('views.lens.hint'); }

  constructor(figure) {
    this.table = document.createElement('table');
    this.table.id = 'lens-view';
    this.table.className = 'lens';
    const caption = document.createElement('caption');
    caption.className = 'visually-hidden';
    caption.textContent = t('views.lens.caption');
    this.table.append(caption);
    figure.append(this.table);
  }

  update(lens) {
    const caption = this.table.querySelector('caption');
    const rows = lens.map((guesses, l) => {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = l === 0 ? t('views.lens.embeddings') : l === lens.length - 1 ? t('views.lens.output', { layer: l }) : t('views.lens.layer', { layer: l });
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
