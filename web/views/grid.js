// Tables the testing views share: a grid of numbers, each cell coloured by its value and, where
// a cell can be picked (a head to knock out), a button a mouse, a tap or the keyboard presses.
import { diverging } from './plot.js';
import { showInPlace } from '../in-place.js';

/** `[r, g, b]` as a CSS colour. */
const css = ([r, g, b]) => `rgb(${r}, ${g}, ${b})`;

/** Black or white, whichever reads better on `[r, g, b]` (WCAG's relative luminance). */
function ink(rgb) {
  const [r, g, b] = rgb.map((c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.18 ? '#111827' : '#ffffff';
}

/**
 * A table of `rows` × `cols` cells: `value(r, c)` coloured on ±`scale` (orange positive, blue
 * negative), written as `text(v)`, headed by `rowLabel(r)` and `colLabel(c)`. With `pick`, each
 * cell is a button named `name(r, c, v)` that calls `pick(r, c)`; `selected(r, c)` marks one.
 */
export function gridTable({ caption, rows, cols, rowLabel, colLabel, value, text, scale = 1, pick, name, selected }) {
  const table = document.createElement('table');
  table.className = 'grid-table';
  const cap = document.createElement('caption');
  cap.textContent = caption;
  const head = document.createElement('tr');
  // The corner cell heads nothing, so it is a plain cell.
  head.append(document.createElement('td'), ...Array.from({ length: cols }, (_, c) => header(colLabel(c), 'col')));
  table.append(cap, head);
  for (let r = 0; r < rows; r++) {
    const tr = document.createElement('tr');
    tr.append(header(rowLabel(r), 'row'));
    for (let c = 0; c < cols; c++) {
      const v = value(r, c);
      const td = document.createElement('td');
      const finite = Number.isFinite(v);
      const colour = diverging(finite ? v / (scale || 1) : 0);
      td.style.background = css(colour);
      td.style.color = ink(colour);
      const content = finite ? text(v) : '—';
      if (pick) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = content;
        button.setAttribute('aria-label', name(r, c, v));
        button.setAttribute('aria-pressed', String(Boolean(selected?.(r, c))));
        button.addEventListener('click', () => pick(r, c));
        td.append(button);
      } else {
        td.textContent = content;
      }
      tr.append(td);
    }
    table.append(tr);
  }
  return table;
}

/**
 * Shows `gridTable(spec)` in `holder`, updated in place when its shape is the same (in-place.js),
 * so a refresh keeps the cell being pressed (its button calls `pick` with the same row and column).
 */
export function showGrid(holder, spec) {
  showInPlace(holder, [gridTable(spec)]);
}

function header(text, scope) {
  const th = document.createElement('th');
  th.scope = scope;
  th.textContent = text;
  return th;
}

/** The largest magnitude among `values` (at least `floor`), for a colour scale. */
export function extent(values, floor = 1e-6) {
  return values.reduce((m, v) => (Number.isFinite(v) ? Math.max(m, Math.abs(v)) : m), floor);
}

/** A menu `id` of `options` ([value, name] pairs) labelled `text`: its label and the menu. */
export function labelledSelect(id, text, options) {
  const label = document.createElement('label');
  label.className = 'row';
  const select = document.createElement('select');
  select.id = id;
  for (const [value, name] of options) select.append(new Option(name, value));
  label.append(text, ' ', select);
  return [label, select];
}

/** A paragraph for a view's figure. */
export function paragraph(className = '') {
  const p = document.createElement('p');
  p.className = className;
  return p;
}

/** Layer `l`, head `h` as the page names them, counting from 1. */
export const headName = (l, h) => `L${l + 1}H${h + 1}`;
