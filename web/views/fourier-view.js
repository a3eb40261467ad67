// Grokking's progress measures (Nanda et al. 2023), for modular addition: the number embeddings'
// norm at each frequency, the key frequencies, and the restricted and excluded losses over
// training beside the plain ones.
import { CanvasView, PALETTE, frame, keyedFrame, line, viewCanvas } from './plot.js';
import { paragraph } from './grid.js';

class Spectrum extends CanvasView {
  draw(ctx, size, { norms, key }) {
    const top = Math.max(...norms.slice(1), 1e-6) * 1.1;
    const n = norms.length - 1;
    const box = frame(ctx, size, [0.5, n + 0.5], [0, top], { xLabel: 'frequency', yLabel: 'embedding norm' });
    const w = Math.max(1, (box.right - box.left) / n - 1);
    for (let k = 1; k <= n; k++) {
      ctx.fillStyle = key.includes(k) ? PALETTE[1] : '#c7ccd4';
      ctx.fillRect(box.x(k) - w / 2, box.y(norms[k]), w, box.bottom - box.y(norms[k]));
    }
    ctx.fillStyle = PALETTE[1];
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    key.forEach((k) => ctx.fillText(String(k), box.x(k), box.y(norms[k]) - 1));
    this.canvas.setAttribute('aria-label', `Embedding norm at each of ${n} frequencies; key frequencies ${key.join(', ') || 'none yet'}`);
  }
}

const SERIES = [['train', 'train_loss', PALETTE[0], []], ['held out', 'test_loss', PALETTE[2], []], ['restricted', 'restricted_loss', PALETTE[1], [5, 3]], ['excluded', 'excluded_loss', PALETTE[3], [2, 3]]];

class Losses extends CanvasView {
  draw(ctx, size, history) {
    const top = Math.max(...history.flatMap((p) => SERIES.map(([, field]) => p[field])).filter(Number.isFinite), 1e-3) * 1.05;
    const items = SERIES.map(([label, , color, dash]) => [label, color, dash]);
    const box = keyedFrame(ctx, size, [history[0].step, Math.max(history.at(-1).step, 1)], [0, top], items, { xLabel: 'step', yLabel: 'loss' });
    for (const [, field, color, dash] of SERIES) line(ctx, history.map((p) => [p.step, p[field]]), box, color, 1.8, dash);
    const last = history.at(-1);
    this.canvas.setAttribute('aria-label', `Losses at ${history.length} evaluations; at step ${last.step}: ${SERIES.map(([label, field]) => `${label} ${last[field].toFixed(3)}`).join(', ')}`);
  }
}

export class FourierView {
  static key = 'fourier';
  static title = 'Grokking in the Fourier basis';
  static hint = 'For modular addition. A model that groks adds by rotation: it writes each number as waves at a few key frequencies (orange bars). Restricted loss keeps only those frequencies in the answer\'s logits; excluded loss removes them (on training problems). The circuit forms while the restricted loss falls and the excluded loss rises, before held-out accuracy jumps; then weight decay cleans up the memorised part.';
  static wide = true;

  constructor(figure) {
    this.summary = paragraph('readout');
    this.summary.id = 'fourier-summary';
    figure.append(this.summary);
    this.spectrum = new Spectrum(viewCanvas(figure, 'fourier-spectrum', 'Embedding norm by frequency'));
    this.losses = new Losses(viewCanvas(figure, 'fourier-losses', 'Restricted and excluded losses over training'));
  }

  update(data) {
    if (!data) {
      this.summary.textContent = 'These measures are for the modular addition task (the grokking preset).';
      this.spectrum.update(null);
      this.losses.update(null);
      return;
    }
    const { now, history } = data;
    this.summary.textContent = `Step ${now.step}: key frequencies ${now.key.length ? now.key.join(', ') : 'none yet'}; `
      + `restricted loss ${now.restricted_loss.toFixed(3)}, excluded loss ${now.excluded_loss.toFixed(3)}, held-out loss ${now.test_loss.toFixed(3)}.`;
    this.spectrum.update(now);
    this.losses.update(history.length > 0 ? history : null);
  }
}
