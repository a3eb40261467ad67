// Ablation: knock out a head or an MLP (click, tap or press its cell) and see the held-out loss and
// accuracy with and without it, the shown problems that flip, and every part's cost over training.
import { decimal, t, tParts } from '../i18n.js';
import { CanvasView, PALETTE, keyedFrame, line, viewCanvas } from './plot.js';
import { extent, headName, paragraph, showGrid } from './grid.js';

const percent = (x) => `${decimal(x * 100, 1)}%`;

/** Each head's cost (accuracy lost, or loss added for text) at each evaluation, drawn over steps. */
class CostChart extends CanvasView {
  draw(ctx, size, { history, nh, accuracy }) {
    // Accuracy in percentage points, as the grid shows it.
    const cost = (g) => (accuracy ? g.head_accuracy.map((x) => x * 100) : g.head_loss);
    const top = Math.max(accuracy ? 0.1 : 1e-3, ...history.map((g) => extent(cost(g)))) * 1.1;
    const count = cost(history[0]).length;
    const items = Array.from({ length: Math.min(count, 8) }, (_, i) => [headName(Math.floor(i / nh), i % nh), PALETTE[i % PALETTE.length]]);
    const box = keyedFrame(ctx, size, [history[0].step, Math.max(history.at(-1).step, 1)], [Math.min(0, -top * 0.05), top], items, { xLabel: t('common.step'), yLabel: accuracy ? t('views.ablation.accuracy-lost-percent') : t('views.ablation.loss-added') });
    for (let i = 0; i < count; i++) line(ctx, history.map((g) => [g.step, cost(g)[i]]), box, PALETTE[i % PALETTE.length], 1.6);
    this.canvas.setAttribute('aria-label', t(accuracy ? 'views.ablation.chart-label-accuracy' : 'views.ablation.chart-label-loss', { n: history.length, step: history.at(-1).step }));
  }
}

export class AblationView {
  static key = 'ablation';
  static get title() { return t('views.ablation.title'); }
  static get hint() { return t('views.ablation.hint'); }
  static wide = true;

  constructor(figure, { ask }) {
    this.ask = ask;
    const label = document.createElement('label');
    label.className = 'row';
    this.fill = document.createElement('select');
    this.fill.id = 'ablation-fill';
    this.fill.append(new Option(t('views.ablation.mean'), 'mean'), new Option(t('views.ablation.zeros'), 'zero'));
    label.append(...tParts('views.ablation.replace', { select: this.fill }));
    this.fill.addEventListener('change', () => ask({ fill: this.fill.value }));
    this.costLabel = document.createElement('label');
    this.costLabel.className = 'row';
    this.cost = document.createElement('select');
    this.cost.id = 'ablation-cost';
    this.cost.append(new Option(t('views.ablation.accuracy-lost'), 'accuracy'), new Option(t('views.ablation.loss-added'), 'loss'));
    this.costLabel.append(...tParts('views.ablation.cost-as', { select: this.cost }));
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
    this.chart = new CostChart(viewCanvas(figure, 'ablation-chart', t('views.ablation.chart')));
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
    const show = (v) => (accuracy ? percent(v) : decimal(v, 3));
    const { site } = ablation;
    const isSite = (l, c) => (c === nh ? site.kind === 'mlp' && site.layer === l : site.kind === 'head' && site.layer === l && site.head === c);
    const what = accuracy ? t('views.ablation.accuracy-lost') : t('views.ablation.loss-added');
    showGrid(this.grid, {
      caption: t(accuracy ? 'views.ablation.caption-problems' : 'views.ablation.caption-rows', { what, rows: grid.rows }),
      rows: inside.n_layer,
      cols: nh + 1,
      rowLabel: (l) => t('views.ablation.layer', { layer: l + 1 }),
      colLabel: (c) => (c === nh ? 'MLP' : t('views.ablation.head', { head: c + 1 })),
      value: (l, c) => (c === nh ? mlps[l] : heads[l * nh + c]),
      text: show,
      scale: extent([...heads, ...mlps]),
      pick: (l, c) => this.ask({ ablate: c === nh ? { kind: 'mlp', layer: l } : { kind: 'head', layer: l, head: c } }),
      name: (l, c, v) => t(c === nh ? 'views.ablation.knock-mlp' : 'views.ablation.knock-head', { layer: l + 1, head: c + 1, what, value: show(v) }),
      selected: isSite,
    });
    this.fill.value = ablation.fill;
    const where = { layer: site.layer + 1, head: site.head + 1, name: site.kind === 'mlp' ? '' : headName(site.layer, site.head) };
    const detail = {
      site: site.kind === 'mlp' ? t('views.ablation.site-mlp', where) : t('views.ablation.site-head', where), before: decimal(ablation.whole.loss, 3),
      after: decimal(ablation.ablated.loss, 3), accuracyBefore: task && percent(ablation.whole.accuracy), accuracyAfter: task && percent(ablation.ablated.accuracy),
      flips: ablation.flips.length, shown: ablation.shown,
    };
    this.detail.textContent = t(task ? 'views.ablation.detail-task' : 'views.ablation.detail', detail);
    this.flips.replaceChildren(...ablation.flips.map((f) => {
      const li = document.createElement('li');
      li.textContent = t('views.ablation.flip', { before: `${f.prompt}${f.answer}`, after: `${f.prompt}${f.ablated_answer}`, expected: f.expected });
      return li;
    }));
    this.chart.update(history.length > 0 ? { history, nh, accuracy } : null);
  }
}
