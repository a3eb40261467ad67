// Ablation: knock out a head or an MLP (click, tap or press its cell) and see the held-out loss and
// accuracy with and without it, the shown problems that flip, and every part's cost over training.
import { CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';
import { extent, headName, paragraph, showGrid } from './grid.js';

const percent = (x) => `${(x * 100).toFixed(1)}%`;

/** Each head's cost (accuracy lost, or loss added for text) at each evaluation, drawn over steps. */
class CostChart extends CanvasView {
  draw(ctx, size, { history, nh, accuracy }) {
    // Accuracy in percentage points, as the grid shows it.
    const cost = (g) => (accuracy ? g.head_accuracy.map((x) => x * 100) : g.head_loss);
    const top = Math.max(accuracy ? 0.1 : 1e-3, ...history.map((g) => extent(cost(g)))) * 1.1;
    const count = cost(history[0]).length;
    const items = Array.from({ length: Math.min(count, 8) }, (_, i) => [headName(Math.floor(i / nh), i % nh), PALETTE[i % PALETTE.length]]);
    const box = keyedFrame(ctx, size, [history[0].step, Math.max(history.at(-1).step, 1)], [Math.min(0, -top * 0.05), top], items, { xLabel: 'step', yLabel: accuracy ? 'held-out accuracy lost (%)' : 'held-out loss added' });
    for (let i = 0; i < count; i++) line(ctx, history.map((g) => [g.step, cost(g)[i]]), box, PALETTE[i % PALETTE.length], 1.6);
    this.canvas.setAttribute('aria-label', `Each head's ablation cost (${accuracy ? 'accuracy' : 'loss'}) at ${history.length} evaluations, up to step ${history.at(-1).step}`);
  }
}

export class AblationView {
  static key = 'ablation';
  static title = 'Knock out a head';
  static hint = 'Each cell is what the held-out problems (or held-out text) lose when that head or MLP is knocked out: its output replaced by its mean over held-out rows, or by zeros. Press a cell to see the scores with and without it and which shown problems flip. The chart shows each head\'s cost at every evaluation.';
  static wide = true;

  constructor(figure, { ask }) {
    this.ask = ask;
    const label = document.createElement('label');
    label.className = 'row';
    this.fill = document.createElement('select');
    this.fill.id = 'ablation-fill';
    this.fill.append(new Option('its mean', 'mean'), new Option('zeros', 'zero'));
    label.append('Replace the output by ', this.fill);
    this.fill.addEventListener('change', () => ask({ fill: this.fill.value }));
    this.costLabel = document.createElement('label');
    this.costLabel.className = 'row';
    this.cost = document.createElement('select');
    this.cost.id = 'ablation-cost';
    this.cost.append(new Option('held-out accuracy lost', 'accuracy'), new Option('held-out loss added', 'loss'));
    this.costLabel.append('Cost as ', this.cost);
    this.cost.addEventListener('change', () => this.last && this.update(...this.last));
    this.grid = document.createElement('div');
    this.grid.id = 'ablation-grid';
    this.detail = paragraph('readout');
    this.detail.id = 'ablation-detail';
    this.detail.setAttribute('aria-live', 'polite');
    this.flips = document.createElement('ul');
    this.flips.id = 'ablation-flips';
    this.flips.className = 'flips';
    figure.append(label, this.costLabel, this.grid, this.detail, this.flips);
    this.chart = new CostChart(viewCanvas(figure, 'ablation-chart', 'Ablation cost over training'));
  }

  update(data, context) {
    this.last = [data, context];
    const [{ grid, history, ablation }, { inside }] = this.last;
    const nh = inside.n_head;
    const task = grid.head_accuracy.length > 0;
    this.costLabel.hidden = !task; // text has a loss, not an accuracy
    const accuracy = task && this.cost.value === 'accuracy';
    const heads = accuracy ? grid.head_accuracy : grid.head_loss;
    const mlps = accuracy ? grid.mlp_accuracy : grid.mlp_loss;
    const show = (v) => (accuracy ? percent(v) : v.toFixed(3));
    const { site } = ablation;
    const isSite = (l, c) => (c === nh ? site.kind === 'mlp' && site.layer === l : site.kind === 'head' && site.layer === l && site.head === c);
    const what = accuracy ? 'held-out accuracy lost' : 'held-out loss added';
    showGrid(this.grid, {
      caption: `${what} when each part is knocked out (${grid.rows} held-out ${accuracy ? 'problems' : 'rows'})`,
      rows: inside.n_layer,
      cols: nh + 1,
      rowLabel: (l) => `layer ${l + 1}`,
      colLabel: (c) => (c === nh ? 'MLP' : `head ${c + 1}`),
      value: (l, c) => (c === nh ? mlps[l] : heads[l * nh + c]),
      text: show,
      scale: extent([...heads, ...mlps]),
      pick: (l, c) => this.ask({ ablate: c === nh ? { kind: 'mlp', layer: l } : { kind: 'head', layer: l, head: c } }),
      name: (l, c, v) => `Knock out ${c === nh ? `layer ${l + 1}'s MLP` : `layer ${l + 1} head ${c + 1}`}: ${what} ${show(v)}`,
      selected: isSite,
    });
    this.fill.value = ablation.fill;
    const name = site.kind === 'mlp' ? `Layer ${site.layer + 1}'s MLP` : `${headName(site.layer, site.head)} (layer ${site.layer + 1} head ${site.head + 1})`;
    const scores = task ? `held-out accuracy ${percent(ablation.whole.accuracy)} → ${percent(ablation.ablated.accuracy)}, ` : '';
    this.detail.textContent = `${name} knocked out: ${scores}held-out loss ${ablation.whole.loss.toFixed(3)} → ${ablation.ablated.loss.toFixed(3)}.`
      + (task ? ` ${ablation.flips.length} of the ${ablation.shown} shown problems flip${ablation.flips.length ? ':' : '.'}` : '');
    this.flips.replaceChildren(...ablation.flips.map((f) => {
      const li = document.createElement('li');
      li.textContent = `${f.prompt}${f.answer} → ${f.prompt}${f.ablated_answer} (right: ${f.expected})`;
      return li;
    }));
    this.chart.update(history.length > 0 ? { history, nh, accuracy } : null);
  }
}
