// Drawing helpers the charts share: canvases sized to the screen, a plot box with axes, lines,
// and colour scales.
import { t } from '../i18n.js';

export const PALETTE = ['#2563eb', '#ea580c', '#16a34a', '#9333ea', '#db2777', '#0891b2', '#ca8a04', '#4b5563'];
export const AXIS = '#6b7280';
const GRID = '#eef0f3';

/** The smallest whole step of 1, 2, 2.5 or 5 times a power of ten that is at least `rough`. */
export function roundStep(rough) {
  const power = 10 ** Math.floor(Math.log10(Math.max(1e-9, rough)));
  const multiples = power >= 10 ? [1, 2, 2.5, 5, 10] : [1, 2, 5, 10];
  return power * multiples.find((m) => m * power >= rough);
}

/** Sizes `canvas` to its box at the screen's pixel ratio; returns its 2-D context and size in CSS pixels. */
export function prepare(canvas) {
  const { width, height } = canvas.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(width * dpr));
  canvas.height = Math.max(1, Math.round(height * dpr));
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = '11px system-ui, sans-serif';
  return { ctx, width, height };
}

/**
 * A plot area inside `width` × `height` for x in [x0, x1] and y in [y0, y1], with gridlines and
 * tick labels drawn (on x, unless `xTicks` is false: the caller labels its own categories);
 * returns the mapping from data to pixels.
 */
export function frame(ctx, { width, height }, [x0, x1], [y0, y1], { left = 40, right = 10, top = 10, bottom, xLabel = '', yLabel = '', xTicks = true } = {}) {
  bottom ??= xLabel ? 34 : 22; // room for the axis title under the tick labels
  const w = width - left - right;
  const h = height - top - bottom;
  const x = (v) => left + ((v - x0) / (x1 - x0 || 1)) * w;
  const y = (v) => top + (1 - (v - y0) / (y1 - y0 || 1)) * h;
  ctx.strokeStyle = GRID;
  ctx.fillStyle = AXIS;
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  const yStep = roundStep((y1 - y0) / 4);
  for (let v = Math.ceil(y0 / yStep) * yStep; v <= y1 + 1e-9; v += yStep) {
    ctx.beginPath();
    ctx.moveTo(left, y(v));
    ctx.lineTo(width - right, y(v));
    ctx.stroke();
    ctx.fillText(Number(v.toPrecision(3)).toString(), left - 4, y(v));
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const xStep = roundStep((x1 - x0) / 5);
  for (let v = Math.ceil(x0 / xStep) * xStep; xTicks && v <= x1 + 1e-9; v += xStep) ctx.fillText(String(Number(v.toPrecision(4))), x(v), height - bottom + 5);
  ctx.textAlign = 'right';
  if (xLabel) ctx.fillText(xLabel, width - right, height - bottom + 5 + 11);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  if (yLabel) ctx.fillText(yLabel, left + 4, top + 2);
  return { x, y, left, right: width - right, top, bottom: height - bottom };
}

/** A polyline through `points` ([x, y] in data units) mapped by `box`. */
export function line(ctx, points, box, color, width = 1.5, dash = []) {
  stroke(ctx, color, width, dash, () => points.forEach(([px, py]) => ctx.lineTo(box.x(px), box.y(py))));
}

/**
 * The polyline of `values`, value i at `at(i)` across (by default step i + 1; any increasing
 * position, such as a step's training time), mapped by `box`. Where there are more values than
 * pixels across (a long run's losses), each pixel column draws just the range of the values that
 * fall in it: the same picture from a few thousand segments.
 */
export function series(ctx, values, box, color, width = 1.5, dash = [], at = (i) => i + 1) {
  const x = (i) => box.x(at(i));
  stroke(ctx, color, width, dash, () => {
    if (values.length <= 2 * Math.abs(x(values.length - 1) - x(0))) {
      values.forEach((v, i) => ctx.lineTo(x(i), box.y(v)));
      return;
    }
    let [column, lo, hi] = [Math.round(x(0)), values[0], values[0]];
    const span = () => {
      ctx.lineTo(column, box.y(lo));
      ctx.lineTo(column, box.y(hi));
    };
    values.forEach((v, i) => {
      const at = Math.round(x(i));
      if (at !== column) {
        span();
        [column, lo, hi] = [at, v, v];
      }
      [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
    });
    span();
  });
}

/** Strokes the path `trace()` draws (its first lineTo starts it), then clears the dash. */
function stroke(ctx, color, width, dash, trace) {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  trace();
  ctx.stroke();
  ctx.setLineDash([]);
}

/** Blue for −1, white for 0, orange for +1. */
export function diverging(t) {
  const s = Math.min(Math.abs(t), 1);
  return t < 0 ? [Math.round(255 - s * 218), Math.round(255 - s * 156), Math.round(255 - s * 20)]
    : [Math.round(255 - s * 21), Math.round(255 - s * 167), Math.round(255 - s * 243)];
}

/** Paints a rows × cols grid of values, `color(value)` each, into the rectangle at (x, y). */
export function heatmap(ctx, { rows, cols, value, color }, x, y, w, h) {
  const image = ctx.createImageData(cols, rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = (r * cols + c) * 4;
      [image.data[i], image.data[i + 1], image.data[i + 2]] = color(value(r, c));
      image.data[i + 3] = 255;
    }
  }
  const tile = new OffscreenCanvas(cols, rows);
  tile.getContext('2d').putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(tile, x, y, w, h);
}

/**
 * Where each of a legend's `[label, color, dash]` items goes, `{ label, color, dash, x, y }`: in
 * rows from (x, y), 14 px apart, each wrapping before `right` (a phone's chart is narrow).
 */
export function legendLayout(ctx, items, x, y, right) {
  const left = x;
  return items.map(([label, color, dash = []]) => {
    const width = ctx.measureText(label).width + 34;
    if (x > left && x + width - 16 > right) [x, y] = [left, y + 14];
    const at = { label, color, dash, x, y };
    x += width;
    return at;
  });
}

/** Text in the current fill colour over a white outline, so that it reads where it crosses a curve. */
export function haloText(ctx, text, x, y) {
  ctx.strokeStyle = 'rgba(255, 255, 255, 0.9)';
  ctx.lineWidth = 3;
  ctx.lineJoin = 'round';
  ctx.strokeText(text, x, y);
  ctx.fillText(text, x, y);
  ctx.lineWidth = 1;
}

/** Draws a legend where `legendLayout` placed it: each item's stroke, then its label. */
export function legend(ctx, placed) {
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const { label, color, dash, x, y } of placed) {
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.setLineDash(dash);
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(x + 16, y);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = AXIS;
    ctx.fillText(label, x + 20, y);
  }
}

/** The top edge below a legend `legendLayout` placed from y = 10 (24 for one row). */
export const belowLegend = (placed) => (placed.at(-1)?.y ?? 10) + 14;

/** A `frame` (same arguments) under a legend of `items`, in as many rows as its width needs. */
export function keyedFrame(ctx, size, xs, ys, items, options = {}) {
  const placed = legendLayout(ctx, items, (options.left ?? 40) + 4, 10, size.width - 4);
  const box = frame(ctx, size, xs, ys, { ...options, top: belowLegend(placed) });
  legend(ctx, placed);
  return box;
}

/** A canvas with id `id` for a figure, an image named `what` ("Token embeddings") until drawn. */
export function viewCanvas(figure, id, what) {
  const canvas = document.createElement('canvas');
  canvas.id = id;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', t('views.none-yet', { what }));
  figure.append(canvas);
  return canvas;
}

/**
 * A view drawn on a canvas (`viewCanvas`) from its part of the engine's data: subclasses draw it
 * (`draw(ctx, size, data)`); it redraws when resized.
 */
export class CanvasView {
  constructor(canvas) {
    this.canvas = canvas;
    this.data = null;
    new ResizeObserver(() => this.redraw()).observe(canvas);
  }

  /** The view's data from the engine; none (a view that cannot answer) hides the canvas. */
  update(data) {
    this.data = data;
    this.canvas.hidden = !data;
    this.redraw();
  }

  redraw() {
    const { ctx, width, height } = prepare(this.canvas);
    if (this.data && width > 0) this.draw(ctx, { width, height }, this.data);
  }
}
