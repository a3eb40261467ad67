// Activation patching: a clean input and a corrupted one; each head's clean output, and the clean
// residual stream at each layer and position, patched into the corrupted run, with the share of
// the logit difference it restores. The pair is proposed from the run until a person types one.
import { decimal, t } from '../i18n.js';
import { tokenLabel } from '../format.js';
import { headName, paragraph, showGrid } from './grid.js';

const share = (v) => decimal(v, 2);

export class PatchingView {
  static key = 'patching';
  static get title() { return t('views.patching.title'); }
  static get hint() { return t('views.patching.hint'); }
  static wide = true;

  constructor(figure, { ask }) {
    const field = (id, text) => {
      const label = document.createElement('label');
      label.className = 'row';
      const input = document.createElement('input');
      input.id = id;
      input.type = 'text';
      input.spellcheck = false;
      input.autocomplete = 'off';
      label.append(text, ' ', input);
      return [label, input];
    };
    const [cleanLabel, clean] = field('patch-clean', t('views.patching.clean'));
    const [corruptedLabel, corrupted] = field('patch-corrupted', t('views.patching.corrupted'));
    Object.assign(this, { clean, corrupted });
    let timer = 0;
    const changed = () => {
      clearTimeout(timer);
      timer = setTimeout(() => ask({ clean: clean.value, corrupted: corrupted.value }), 300);
    };
    clean.addEventListener('input', changed);
    corrupted.addEventListener('input', changed);
    this.summary = paragraph('readout');
    this.summary.id = 'patching-summary';
    this.heads = document.createElement('div');
    this.heads.id = 'patching-heads';
    this.stream = document.createElement('div');
    this.stream.id = 'patching-stream';
    this.stream.className = 'scroll';
    // It scrolls sideways on a narrow screen: the keyboard must be able to reach it.
    this.stream.tabIndex = 0;
    this.stream.setAttribute('role', 'region');
    this.stream.setAttribute('aria-label', t('views.patching.stream'));
    figure.append(cleanLabel, corruptedLabel, this.summary, this.heads, this.stream);
  }

  update(p, { inside }) {
    const typing = [this.clean, this.corrupted].includes(document.activeElement);
    if (!typing && !this.clean.value && !this.corrupted.value) {
      this.clean.placeholder = p.clean_text;
      this.corrupted.placeholder = p.corrupted_text;
    }
    // The inputs the model reads (a task's prompt and its answer so far), not the problems as typed.
    const [clean, corrupted] = [p.clean.join(''), p.corrupted.join('')];
    this.summary.textContent = t('views.patching.summary', {
      clean: JSON.stringify(clean), answer: JSON.stringify(p.answer), corrupted: JSON.stringify(corrupted), wrong: JSON.stringify(p.wrong),
      cleanDifference: decimal(p.clean_difference, 2), corruptedDifference: decimal(p.corrupted_difference, 2),
    });
    const nh = inside.n_head;
    showGrid(this.heads, {
      caption: t('views.patching.heads'),
      rows: inside.n_layer,
      cols: nh,
      rowLabel: (l) => t('views.patching.layer', { layer: l + 1 }),
      colLabel: (h) => t('views.patching.head', { head: h + 1 }),
      value: (l, h) => p.heads[l * nh + h],
      text: share,
    });
    const positions = p.clean.length;
    const token = (i) => (p.clean[i] === p.corrupted[i] ? tokenLabel(p.clean[i]) : `${tokenLabel(p.clean[i])}/${tokenLabel(p.corrupted[i])}`);
    // Positions down, layers across: a long input stays as narrow as the screen.
    showGrid(this.stream, {
      caption: t('views.patching.residual'),
      rows: positions,
      cols: inside.n_layer,
      rowLabel: token,
      colLabel: (l) => t('views.patching.into', { layer: l + 1 }),
      value: (i, l) => p.residual[l * positions + i],
      text: share,
    });
    this.heads.querySelector('caption').title = t('views.patching.names', { name: headName(0, 0) });
  }
}
