// The attention time-lapse: every head's attention on the held-out probe at each evaluation, and
// a slider to replay them. Draws with the attention section's grid.
import { AttentionView } from '../attention-view.js';

export class TimelapseView {
  constructor({ grid, slider, output, dialog }) {
    Object.assign(this, { slider, output });
    this.view = new AttentionView({ grid, ...dialog });
    this.lapse = null;
    slider.addEventListener('input', () => this.show(Number(slider.value)));
  }

  /** New snapshots ({tokens, steps, n_layer, n_head, t, weights}); jumps to the latest. */
  update(lapse) {
    this.lapse = lapse;
    this.slider.max = Math.max(0, lapse.steps.length - 1);
    this.slider.value = this.slider.max;
    this.show(Number(this.slider.max));
  }

  show(i) {
    const { tokens, steps, n_layer: nl, n_head: nh, t, weights } = this.lapse;
    if (steps.length === 0) return;
    const size = nl * nh * t * t;
    this.view.update({ tokens, n_layer: nl, n_head: nh, t, weights: weights.subarray(i * size, (i + 1) * size) });
    this.output.textContent = `step ${steps[i]} (${i + 1} of ${steps.length})`;
    this.slider.setAttribute('aria-valuetext', `step ${steps[i]}`);
  }

  clear() {
    this.lapse = null;
    this.view.clear();
    this.output.textContent = '';
    this.slider.max = 0;
  }
}
