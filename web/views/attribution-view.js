// Direct logit attribution: each part's direct share of the answer's logit (and of the logit
// difference to the corrupted answer), through the final norm; the parts add up to the logit.
import { decimal, say, t } from '../i18n.js';
import { paragraph } from './grid.js';

export class AttributionView {
  static key = 'attribution';
  static get title() { return t('views.attribution.title'); }
  static get hint() { return t('views.attribution.hint'); }

  constructor(figure) {
    this.summary = paragraph('readout');
    this.summary.id = 'attribution-summary';
    this.table = document.createElement('table');
    this.table.id = 'attribution-view';
    this.table.className = 'bars';
    figure.append(this.summary, this.table);
  }

  update(a) {
    this.summary.textContent = t('views.attribution.summary', {
      answer: JSON.stringify(a.answer), prompt: JSON.stringify(a.tokens.join('')), logit: decimal(a.logit, 2), difference: decimal(a.difference, 2), wrong: JSON.stringify(a.wrong),
    });
    const top = a.parts.reduce((m, p) => Math.max(m, Math.abs(p.difference)), 1e-6);
    const caption = document.createElement('caption');
    caption.textContent = t('views.attribution.caption');
    const head = document.createElement('tr');
    const columns = [t('views.attribution.part'), t('views.attribution.difference'), t('views.attribution.logit')];
    head.append(...columns.map((text) => Object.assign(document.createElement('th'), { scope: 'col', textContent: text })));
    const rows = a.parts.map((p) => {
      const tr = document.createElement('tr');
      // The core names heads and MLPs by the page's names (L1H2, MLP1), and the other parts in words.
      const name = Object.assign(document.createElement('th'), { scope: 'row', textContent: typeof p.name === 'string' ? p.name : say(p.name) });
      const bar = document.createElement('td');
      const fill = document.createElement('span');
      fill.className = p.difference < 0 ? 'bar negative' : 'bar';
      fill.style.width = `${(Math.abs(p.difference) / top) * 100}%`;
      bar.append(fill, ` ${decimal(p.difference, 2)}`);
      const logit = Object.assign(document.createElement('td'), { textContent: decimal(p.logit, 2) });
      tr.append(name, bar, logit);
      return tr;
    });
    this.table.replaceChildren(caption, head, ...rows);
  }
}
