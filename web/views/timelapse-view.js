// The attention time-lapse: every head's attention on the held-out probe at each evaluation, and
// a slider to replay them. Draws with the attention section's grid.
import { t, tParts } from '../i18n.js';
import { AttentionView } from '../attention-view.js';

export class TimelapseView {
  static key = 'timelapse';
  static get title() { return t('views.timelapse.title'); }
  static get hint() { return t('views.timelapse.hint'); }
  static wide = true;

  /** `shared`: the section's `dialog` parts, where a head opens enlarged. */
  constructor(figure, { dialog }) {
    this.output = document.createElement('output');
    this.output.id = 'timelapse-step';
    const label = document.createElement('label');
    label.className = 'row';
    this.slider = Object.assign(document.createElement('input'), { type: 'range', id: 'timelapse-slider', min: '0', max: '0', value: '0' });
    this.slider.setAttribute('aria-label', t('views.timelapse.slider'));
    this.output.htmlFor = this.slider.id;
    label.append(...tParts('views.timelapse.step', { slider: this.slider, output: this.output }));
    const grid = document.createElement('div');
    grid.id = 'timelapse-grid';
    grid.className = 'attention-grid';
    figure.append(label, grid);
    this.view = new AttentionView({ grid, ...dialog });
    this.lapse = null;
    this.slider.addEventListener('input', () => this.show(Number(this.slider.value)));
  }

  /** The steps it holds, and new snapshots when they changed ({tokens, steps, n_layer, n_head, t, weights}): jumps to the latest. */
  update(_steps, { lapse }) {
    if (!lapse) return;
    this.lapse = lapse;
    this.slider.max = Math.max(0, lapse.steps.length - 1);
    this.slider.value = this.slider.max;
    this.show(Number(this.slider.max));
  }

  show(i) {
    const { tokens, steps, n_layer: nl, n_head: nh, t: positions, weights } = this.lapse;
    if (steps.length === 0) return;
    const size = nl * nh * positions * positions;
    this.view.update({ tokens, n_layer: nl, n_head: nh, t: positions, weights: weights.subarray(i * size, (i + 1) * size) });
    this.output.textContent = t('views.timelapse.at', { step: steps[i], i: i + 1, n: steps.length });
    this.slider.setAttribute('aria-valuetext', t('views.timelapse.value', { step: steps[i] }));
  }

  clear() {
    this.lapse = null;
    this.view.clear();
    this.output.textContent = '';
    this.slider.max = 0;
  }
}
