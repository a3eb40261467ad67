// The walk's figures: one per stage (its title, TransformerLens hook, shape, nanoGPT line, what it
// does, and its numbers as a coloured strip or matrix that a pointer, a tap or the arrow keys read
// out), the tokens as buttons to follow, the draw, and a training step's weights.
import { coreText, decimal, say, scientific, t } from './i18n.js';
import { diverging } from './views/plot.js';
import { extent } from './views/grid.js';
import { onPoint } from './pointing.js';
import { clauses, tokenLabel } from './format.js';
import { showInPlace } from './in-place.js';

/** Cells a strip shows on a line before it wraps: a long vector reads as lines of this many. */
const LINE = 64;
const CELL = 14; // the largest a matrix's cell is drawn, and a strip's height, in CSS pixels
const MASKED = [215, 219, 226];

const number = (v) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? scientific(v, 3) : decimal(v, 4));
/** A row's label: a token (its spaces and line breaks shown), or words where each row is a hook. */
const rowLabel = (label) => (typeof label === 'string' ? tokenLabel(label) : say(label));

/** A stage's value as it reads: a whole number (a token id) as one. */
const value = (stage, v) => (stage.whole ? String(v) : number(v));

/** A paragraph of `text` with class `className`. */
function text(tag, className, content) {
  const el = document.createElement(tag);
  el.className = className;
  el.textContent = content;
  return el;
}

/**
 * One stage's figure, kept and updated in place as new numbers come (so a refresh while training
 * rebuilds nothing): `update(stage)` draws the stage's values.
 */
export class StageFigure {
  constructor() {
    this.el = document.createElement('figure');
    this.el.className = 'stage';
    this.caption = document.createElement('figcaption');
    this.title = text('span', 'stage-title', '');
    this.hook = text('code', 'stage-hook', '');
    this.shape = text('span', 'stage-shape', '');
    this.caption.append(this.title, ' ', this.hook, ' ', this.shape);
    this.code = text('code', 'stage-code', '');
    const pre = document.createElement('pre');
    pre.append(this.code);
    this.what = text('p', 'hint', '');
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('role', 'img');
    this.canvas.tabIndex = 0;
    this.readout = text('p', 'readout stage-readout', '');
    this.readout.setAttribute('aria-live', 'polite');
    this.notes = text('p', 'stage-notes', '');
    this.el.append(this.caption, pre, this.what, this.canvas, this.readout, this.notes);
    this.cursor = null; // the cell the keyboard reads, [row, col]
    onPoint(this.canvas, (e) => this.point(e), () => {});
    this.canvas.addEventListener('keydown', (e) => this.key(e));
    new ResizeObserver(() => this.draw()).observe(this.canvas);
  }

  update(stage) {
    this.stage = stage;
    this.title.textContent = say(stage.title);
    this.hook.textContent = stage.hooks.length ? stage.hooks.join(', ') : t('walk.no-hook');
    this.shape.textContent = stage.shape;
    this.code.textContent = stage.code;
    this.what.textContent = say(stage.what);
    this.notes.textContent = stage.notes.map((n) => `${say(n.label)}: ${number(n.value)}`).join(' · ');
    this.scale = extent(stage.values);
    const [lo, hi] = stage.values.filter(Number.isFinite).reduce(([a, b], v) => [Math.min(a, v), Math.max(b, v)], [Infinity, -Infinity]);
    const kind = stage.rows === 1 ? t('walk.strip', { cols: stage.cols }) : t('walk.matrix', { rows: stage.rows, cols: stage.cols });
    const focus = stage.focus_row != null ? t('walk.focus', { row: stage.focus_row, token: rowLabel(stage.row_labels[stage.focus_row] ?? '') }) : '';
    const masked = stage.causal ? t('walk.masked-later') : '';
    this.canvas.setAttribute('aria-label', t('walk.figure-label', { title: say(stage.title), kind, lo: value(stage, lo), hi: value(stage, hi), masked, focus }));
    this.draw();
    if (this.cursor) this.say(...this.cursor);
  }

  /** The layout: cells per line, lines, the label column's width, and a cell's width and height. */
  layout() {
    const { rows, cols, row_labels: labels } = this.stage;
    const strip = rows === 1;
    const perLine = strip ? Math.min(cols, LINE) : cols;
    const lines = strip ? Math.ceil(cols / perLine) : rows;
    const longest = strip ? 0 : Math.max(...labels.map((l) => rowLabel(l).length), 1);
    const label = strip ? 0 : Math.min(120, 12 + 6.5 * longest);
    const width = this.canvas.getBoundingClientRect().width || 300;
    const cell = Math.max(1, Math.min(CELL, (width - label) / perLine));
    // A strip's cells, and those of a matrix of a few rows (a closed block's), are as tall as a
    // matrix's largest however narrow.
    return { strip, perLine, lines, label, cell, high: strip || rows <= 4 ? CELL : cell };
  }

  draw() {
    const stage = this.stage;
    if (!stage) return;
    const { strip, perLine, lines, label, cell, high } = this.layout();
    const height = Math.max(high * lines, 8);
    this.canvas.style.height = `${height}px`;
    const dpr = window.devicePixelRatio || 1;
    const width = this.canvas.getBoundingClientRect().width;
    if (!width) return;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const { values, cols, causal } = stage;
    for (let i = 0; i < values.length; i++) {
      const [r, c] = strip ? [Math.floor(i / perLine), i % perLine] : [Math.floor(i / cols), i % cols];
      const masked = causal && !strip && c > r;
      const [R, G, B] = masked ? MASKED : diverging(values[i] / this.scale);
      ctx.fillStyle = `rgb(${R}, ${G}, ${B})`;
      ctx.fillRect(label + c * cell, r * high, Math.ceil(cell), Math.ceil(high));
    }
    if (!strip) {
      ctx.fillStyle = '#4b5563';
      ctx.font = `${Math.min(11, Math.max(8, high - 2))}px system-ui, sans-serif`;
      ctx.textBaseline = 'middle';
      ctx.textAlign = 'right';
      stage.row_labels.forEach((l, r) => { if (high >= 7 || r === stage.focus_row) ctx.fillText(rowLabel(l), label - 4, r * high + high / 2); });
      if (stage.focus_row != null) {
        ctx.strokeStyle = '#111827';
        ctx.lineWidth = 1.5;
        ctx.strokeRect(label, stage.focus_row * high, cols * cell, high);
      }
    }
    if (this.cursor) {
      const [r, c] = this.cursor;
      const [x, y] = strip ? [c % perLine, Math.floor(c / perLine)] : [c, r];
      ctx.strokeStyle = '#2563eb';
      ctx.lineWidth = 2;
      ctx.strokeRect(label + x * cell, y * high, cell, high);
    }
  }

  /** The value at a pointer's place. */
  point(event) {
    const { strip, perLine, label, cell, high } = this.layout();
    const box = this.canvas.getBoundingClientRect();
    const x = Math.floor((event.clientX - box.left - label) / cell);
    const y = Math.floor((event.clientY - box.top) / high);
    if (x < 0 || y < 0 || x >= perLine) return;
    const [r, c] = strip ? [0, y * perLine + x] : [y, x];
    if (r < this.stage.rows && c < this.stage.cols) this.say(r, c);
  }

  /** Arrow keys move the cell read out; Home and End go to a row's ends. */
  key(event) {
    const { rows, cols } = this.stage;
    const [r, c] = this.cursor ?? [this.stage.focus_row ?? 0, 0];
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0], Home: [0, -c], End: [0, cols - 1 - c] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    this.say(Math.min(rows - 1, Math.max(0, r + move[0])), Math.min(cols - 1, Math.max(0, c + move[1])));
  }

  /** Reads out the value at row `r`, column `c`, and marks it. */
  say(r, c) {
    const { rows, cols, values, row_labels: labels, causal } = this.stage;
    this.cursor = [Math.min(r, rows - 1), Math.min(c, cols - 1)];
    [r, c] = this.cursor;
    const where = rows === 1 ? t('walk.index', { c }) : t('walk.cell', { r, label: rowLabel(labels[r] ?? ''), c });
    // A masked score is −∞ (it crosses as null: JSON has no −∞); a masked weight is 0.
    const v = values[r * cols + c];
    const masked = Number.isFinite(v) ? value(this.stage, v) : '−∞';
    this.readout.textContent = causal && c > r ? t('walk.readout-masked', { where, value: masked }) : t('walk.readout', { where, value: value(this.stage, v) });
    this.draw();
  }
}

/**
 * The tokens of the sequence as buttons, the followed one pressed: `follow(position)` on a press;
 * a refresh of as many tokens keeps the buttons (a press under way, the keyboard's focus).
 */
export function tokenButtons(list, tokens, ids, position, follow) {
  showInPlace(list, tokens.map((token, i) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'token-button';
    button.textContent = tokenLabel(token);
    button.title = t('walk.token-title', { position: i, id: ids[i] });
    button.setAttribute('aria-label', t('walk.token-label', { position: i, token: JSON.stringify(token), id: ids[i] }));
    button.setAttribute('aria-pressed', String(i === position));
    button.addEventListener('click', () => follow(i));
    const id = text('span', 'token-id', String(ids[i]));
    id.setAttribute('aria-hidden', 'true');
    item.append(button, id);
    return item;
  }));
}

/** The draw: the likeliest tokens as labelled bars, the one drawn marked. */
export function drawList(list, { likeliest, picked }) {
  list.replaceChildren(...likeliest.map(({ id, token, prob }) => {
    const item = document.createElement('li');
    const label = text('span', 'token', tokenLabel(token));
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${Math.max(1, prob * 100)}%`;
    const value = text('span', 'prob', `${decimal(prob * 100, 1)}%${id === picked.id ? ' · drawn' : ''}`);
    if (id === picked.id) item.className = 'picked';
    item.append(label, bar, value);
    return item;
  }));
}

/** A training step's weights: each one's optimiser and rate, gradient norm, update norm and norm. */
export function paramRows(body, params, rates) {
  const title = Object.fromEntries(rates.map((r) => [r.optimizer, r.title]));
  body.replaceChildren(...params.map((p) => {
    const tr = document.createElement('tr');
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = `${p.name} (${p.shape.join(' × ')})`;
    const moved = [text('td', '', title[p.optimizer] ?? p.optimizer), text('td', '', scientific(p.lr, 2))];
    tr.append(name, ...moved, ...[p.grad_norm, p.update_norm, p.weight_norm].map((v) => text('td', '', number(v))));
    return tr;
  }));
}

/** Each optimiser's part of a step, in words: "AdamW at rate 3.00e-4 for 6 weights; …". */
export function ratesText(rates) {
  return clauses(rates.map((r) => t(r.shape_scaled ? 'walk.rate-scaled' : 'walk.rate-plain', { optimizer: coreText(r.title), lr: scientific(r.lr, 2), n: r.weights })));
}

export { number };
