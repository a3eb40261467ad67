// The attention maps: one heatmap per layer and head (row = query, column = key), a hover readout,
// and an enlarged view with token labels on both axes.
import { decimal, t } from './i18n.js';
import { tokenLabel } from './format.js';
import { onPoint, showTooltip } from './pointing.js';

/**
 * Weight 0 → white, 1 → deep blue, in 256 shades of the weight's square root (so weak but real
 * attention stays visible), made once: the maps repaint every cell while training, and a colour
 * made per cell was most of their cost and garbage. Future (masked) cells are a neutral grey.
 */
const SHADES = Array.from({ length: 256 }, (_, i) => {
  const t = i / 255;
  return [Math.round(255 - t * 225), Math.round(255 - t * 190), Math.round(255 - t * 80)];
});
const color = (w) => SHADES[Math.round(Math.sqrt(Math.min(Math.max(w, 0), 1)) * 255)];
const MASKED = [236, 237, 240];
const LABEL_MARGIN = 56;

export class AttentionView {
  constructor({ grid, dialog, dialogTitle, large, readout, tooltip }) {
    Object.assign(this, { grid, dialog, dialogTitle, large, readout, tooltip });
    this.maps = null;
    this.open = null; // [layer, head] shown enlarged
    this.canvases = [];
    onPoint(large, (e) => this.hoverLarge(e), () => {});
    dialog.addEventListener('close', () => { this.open = null; });
  }

  clear() {
    this.maps = null;
    this.grid.replaceChildren();
    this.canvases = [];
  }

  /** Shows new maps ({tokens, n_layer, n_head, t, weights}); rebuilds the grid if its shape changed. */
  update(maps) {
    const shape = `${maps.n_layer}x${maps.n_head}`;
    if (this.shape !== shape || this.canvases.length === 0) this.build(maps.n_layer, maps.n_head, shape);
    this.maps = maps;
    this.canvases.forEach((canvas, i) => this.drawSmall(canvas, Math.floor(i / maps.n_head), i % maps.n_head));
    if (this.open) this.drawLarge();
  }

  build(nLayer, nHead, shape) {
    this.shape = shape;
    this.canvases = [];
    this.grid.style.setProperty('--heads', nHead);
    const rows = [];
    for (let l = 0; l < nLayer; l++) {
      const label = document.createElement('span');
      label.className = 'layer-label';
      label.textContent = t('attention.layer', { layer: l + 1 });
      rows.push(label);
      for (let h = 0; h < nHead; h++) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'head';
        button.setAttribute('aria-label', t('attention.enlarge', { layer: l + 1, head: h + 1 }));
        const canvas = document.createElement('canvas');
        canvas.dataset.layer = l;
        canvas.dataset.head = h;
        const caption = document.createElement('span');
        caption.textContent = t('attention.head', { head: h + 1 });
        button.append(canvas, caption);
        button.addEventListener('click', () => this.enlarge(l, h));
        onPoint(canvas, (e) => this.hoverSmall(e, l, h), () => { this.tooltip.hidden = true; });
        this.canvases.push(canvas);
        rows.push(button);
      }
    }
    this.grid.replaceChildren(...rows);
  }

  weight(l, h, q, k) {
    const { n_head: nh, t, weights } = this.maps;
    return weights[((l * nh + h) * t + q) * t + k];
  }

  /** The colour of one cell: future (masked) keys are grey. */
  cellColor(l, h, q, k) {
    return k > q ? MASKED : color(this.weight(l, h, q, k));
  }

  drawSmall(canvas, l, h) {
    const { t } = this.maps;
    if (canvas.width !== t || canvas.height !== t) [canvas.width, canvas.height] = [t, t];
    const ctx = canvas.getContext('2d');
    if (this.image?.width !== t) this.image = ctx.createImageData(t, t); // one for every map
    const pixels = this.image.data;
    for (let q = 0; q < t; q++) {
      for (let k = 0; k < t; k++) {
        const i = (q * t + k) * 4;
        const rgb = this.cellColor(l, h, q, k);
        pixels[i] = rgb[0];
        pixels[i + 1] = rgb[1];
        pixels[i + 2] = rgb[2];
        pixels[i + 3] = 255;
      }
    }
    ctx.putImageData(this.image, 0, 0);
  }

  /** The query and key under the mouse in a square of side `size` starting at `origin`. */
  cellAt(e, canvas, origin, size) {
    const rect = canvas.getBoundingClientRect();
    const scale = canvas.width / rect.width;
    const { t } = this.maps;
    const k = Math.floor((((e.clientX - rect.left) * scale - origin) / size) * t);
    const q = Math.floor((((e.clientY - rect.top) * scale - origin) / size) * t);
    return q >= 0 && k >= 0 && q < t && k < t ? { q, k } : null;
  }

  describeCell(l, h, q, k) {
    const tok = (i) => `“${tokenLabel(this.maps.tokens[i])}” (${i + 1})`;
    const w = k > q ? t('attention.masked') : decimal(this.weight(l, h, q, k), 3);
    return t('attention.cell', { layer: l + 1, head: h + 1, query: tok(q), key: tok(k), weight: w });
  }

  hoverSmall(e, l, h) {
    if (!this.maps) return;
    const cell = this.cellAt(e, e.target, 0, e.target.width);
    if (!cell) return;
    const section = this.grid.closest('section').getBoundingClientRect();
    showTooltip(this.tooltip, this.describeCell(l, h, cell.q, cell.k), section, e.clientX + 12, e.clientY + 12);
  }

  enlarge(l, h) {
    if (!this.maps) return;
    this.tooltip.hidden = true; // a tap's readout of the small map would sit behind the large one
    this.open = [l, h];
    this.dialogTitle.textContent = t('attention.head-title', { layer: l + 1, head: h + 1 });
    this.readout.textContent = t('attention.hover');
    this.drawLarge();
    if (!this.dialog.open) this.dialog.showModal();
  }

  drawLarge() {
    const [l, h] = this.open;
    const { t: length, tokens } = this.maps;
    const canvas = this.large;
    const side = canvas.width - LABEL_MARGIN;
    const cell = side / length;
    const ctx = canvas.getContext('2d');
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (let q = 0; q < length; q++) {
      for (let k = 0; k < length; k++) {
        ctx.fillStyle = `rgb(${this.cellColor(l, h, q, k).join(',')})`;
        ctx.fillRect(LABEL_MARGIN + k * cell, LABEL_MARGIN + q * cell, Math.ceil(cell), Math.ceil(cell));
      }
    }
    const font = Math.max(7, Math.min(14, cell * 0.8));
    ctx.font = `${font}px ui-monospace, monospace`;
    ctx.fillStyle = '#374151';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    const label = (token) => [...tokenLabel(token)].slice(0, 6).join('');
    tokens.forEach((token, i) => ctx.fillText(label(token), LABEL_MARGIN - 6, LABEL_MARGIN + (i + 0.5) * cell));
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    tokens.forEach((token, i) => ctx.fillText(label(token), LABEL_MARGIN + (i + 0.5) * cell, LABEL_MARGIN - 6));
    ctx.save();
    ctx.font = '11px system-ui, sans-serif';
    ctx.fillStyle = '#6b7280';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(t('attention.key-axis'), 4, 4);
    ctx.fillText(t('attention.query-axis'), 4, 18);
    ctx.restore();
  }

  hoverLarge(e) {
    if (!this.maps || !this.open) return;
    const cell = this.cellAt(e, this.large, LABEL_MARGIN, this.large.width - LABEL_MARGIN);
    if (cell) this.readout.textContent = this.describeCell(...this.open, cell.q, cell.k);
  }
}
