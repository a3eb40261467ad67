// Composition scores: how much each head reads, through its queries, keys or values, what a head
// of the layer before wrote. The induction circuit (a previous-token head, then an induction head
// reading it through its keys) is named and its K-composition drawn over training.
import { decimal, t } from '../i18n.js';
import { CanvasView, PALETTE, frame, line, viewCanvas } from './plot.js';
import { extent, gridTable, headName, paragraph } from './grid.js';

class CircuitChart extends CanvasView {
  draw(ctx, size, { history, at }) {
    const top = Math.max(0.05, ...history.map((c) => c.k[at])) * 1.1;
    const box = frame(ctx, size, [history[0].step, Math.max(history.at(-1).step, 1)], [0, top], { xLabel: t('common.step'), yLabel: t('views.composition.k') });
    line(ctx, history.map((c) => [c.step, c.k[at]]), box, PALETTE[1], 2);
    this.canvas.setAttribute('aria-label', t('views.composition.chart-label', { n: history.length, k: decimal(history.at(-1).k[at], 2), step: history.at(-1).step }));
  }
}

export class CompositionView {
  static key = 'composition';
  static get title() { return t('views.composition.title'); }
  static get hint() { return t('views.composition.hint'); }
  static wide = true;

  constructor(figure) {
    this.circuit = paragraph('readout');
    this.circuit.id = 'composition-circuit';
    this.tables = document.createElement('div');
    this.tables.id = 'composition-view';
    this.tables.className = 'tables';
    figure.append(this.circuit, this.tables);
    this.chart = new CircuitChart(viewCanvas(figure, 'composition-chart', t('views.composition.chart')));
  }

  update(data, { inside }) {
    if (!data) {
      this.circuit.textContent = t('views.composition.needs-layers');
      this.tables.replaceChildren();
      this.chart.update(null);
      return;
    }
    const { now, history, circuit } = data;
    const [layers, nh] = [inside.n_layer, inside.n_head];
    const scale = extent([...now.q, ...now.k, ...now.v]);
    const tables = [];
    for (let l = 0; l + 1 < layers; l++) {
      for (const [kind, scores] of [['Q', now.q], ['K', now.k], ['V', now.v]]) {
        const at = (h1, h2) => (l * nh + h1) * nh + h2;
        const table = gridTable({
          caption: t('views.composition.table', { kind, from: l + 1, to: l + 2 }),
          rows: nh,
          cols: nh,
          rowLabel: (h) => headName(l, h),
          colLabel: (h) => headName(l + 1, h),
          value: (h1, h2) => scores[at(h1, h2)],
          text: (v) => decimal(v, 2),
          scale,
        });
        if (kind === 'K' && circuit?.layer === l) table.rows[circuit.previous + 1].cells[circuit.induction + 1].classList.add('circuit');
        tables.push(table);
      }
    }
    this.tables.replaceChildren(...tables);
    if (!circuit) {
      this.circuit.textContent = t('views.composition.none');
      this.chart.update(null);
      return;
    }
    const [prev, ind] = [headName(circuit.layer, circuit.previous), headName(circuit.layer + 1, circuit.induction)];
    this.circuit.textContent = t(circuit.formed ? 'views.composition.formed' : 'views.composition.candidate', { prev, ind, k: decimal(circuit.k, 2) });
    const at = (circuit.layer * nh + circuit.previous) * nh + circuit.induction;
    this.chart.update(history.length > 0 ? { history, at } : null);
  }
}
