// Activation patching: a clean input and a corrupted one; each head's clean output, and the clean
// residual stream at each layer and position, patched into the corrupted run, with the share of
// the logit difference it restores. The pair is proposed from the run until a person types one.
import { tokenLabel } from '../format.js';
import { headName, paragraph, showGrid } from './grid.js';

const share = (v) => v.toFixed(2);

export class PatchingView {
  static key = 'patching';
  static title = 'Patch a clean run into a corrupted one';
  static hint = 'Run the corrupted input, but take one part from the clean run: 1 means that part alone restores the clean answer (it carries the difference), 0 that it does nothing. For a task the page proposes the shown problem with one symbol changed; for text, random tokens repeated once with the copied token changed. Type your own pair (the same number of tokens), or clear both to go back to the proposal.';
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
      label.append(text, input);
      return [label, input];
    };
    const [cleanLabel, clean] = field('patch-clean', 'Clean ');
    const [corruptedLabel, corrupted] = field('patch-corrupted', 'Corrupted ');
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
    this.stream.setAttribute('aria-label', 'Share restored at each layer and position');
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
    this.summary.textContent = `Clean ${JSON.stringify(clean)} → ${JSON.stringify(p.answer)}; corrupted ${JSON.stringify(corrupted)} → ${JSON.stringify(p.wrong)}. `
      + `Logit difference (${JSON.stringify(p.answer)} − ${JSON.stringify(p.wrong)}): ${p.clean_difference.toFixed(2)} clean, ${p.corrupted_difference.toFixed(2)} corrupted.`;
    const nh = inside.n_head;
    showGrid(this.heads, {
      caption: 'Share restored by each head\'s clean output',
      rows: inside.n_layer,
      cols: nh,
      rowLabel: (l) => `layer ${l + 1}`,
      colLabel: (h) => `head ${h + 1}`,
      value: (l, h) => p.heads[l * nh + h],
      text: share,
    });
    const t = p.clean.length;
    const token = (i) => (p.clean[i] === p.corrupted[i] ? tokenLabel(p.clean[i]) : `${tokenLabel(p.clean[i])}/${tokenLabel(p.corrupted[i])}`);
    // Positions down, layers across: a long input stays as narrow as the screen.
    showGrid(this.stream, {
      caption: 'Share restored by the clean residual stream entering each layer, at each position (clean/corrupted where they differ)',
      rows: t,
      cols: inside.n_layer,
      rowLabel: token,
      colLabel: (l) => `into layer ${l + 1}`,
      value: (i, l) => p.residual[l * t + i],
      text: share,
    });
    this.heads.querySelector('caption').title = `Heads are named ${headName(0, 0)} and so on in the other views.`;
  }
}
