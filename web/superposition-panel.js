// "Superposition": Elhage et al.'s toy model, n sparse features squeezed into m dimensions,
// trained in a worker of its own (toy-worker.js) while the page draws what it stores: each
// feature's direction (in 2 dimensions), norm and dimensionality, and W Wᵀ. Its phase diagram is
// a grid of such models, the cells shared among as many workers as the machine has cores.
import { count, decimal, t, workerUrl } from './i18n.js';
import { duration } from './format.js';
import { showGrid, extent } from './views/grid.js';
import { PALETTE } from './views/plot.js';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('toy-form'), features: $('toy-features'), hidden: $('toy-hidden'), sparsity: $('toy-sparsity'),
  decay: $('toy-decay'), variant: $('toy-variant'), steps: $('toy-steps'), train: $('toy-train'), stop: $('toy-stop'),
  status: $('toy-status'), outcome: $('toy-outcome'), progress: $('toy-progress'), error: $('toy-error'), arrows: $('toy-arrows'),
  arrowsCaption: $('toy-arrows-caption'), table: $('toy-table'), gram: $('toy-gram'),
  phaseForm: $('toy-phase-form'), shape: $('toy-phase-shape'), side: $('toy-phase-side'), draw: $('toy-phase-draw'),
  phaseStop: $('toy-phase-stop'), phaseStatus: $('toy-phase-status'), phaseError: $('toy-phase-error'),
  canvas: $('toy-phase-canvas'), cellInfo: $('toy-phase-cell'),
};
/** A feature of this norm or more is stored (as the phase diagram's cells count it). */
const STORED = 0.5;
/** Features the views show at most: a grid of more is not read, only scrolled. */
const SHOWN = 32;
/** The phase colours, as the legend's swatches (style.css). */
const PHASE_COLORS = { not_stored: '#e5e7eb', alone: '#2563eb', superposed: '#ea580c' };
/** Each phase in words, as the legend says it. */
const PHASE_NAMES = { not_stored: () => t('toy.not-stored'), alone: () => t('toy.alone'), superposed: () => t('toy.superposed') };
const SVG = 'http://www.w3.org/2000/svg';

/** Seconds to a tenth under a minute (a toy model trains in one or two), else as `duration` says. */
const elapsed = (seconds) => (seconds < 60 ? t('format.seconds', { s: decimal(seconds, 1) }) : duration(seconds));
const newWorker = () => new Worker(workerUrl('./toy-worker.js', import.meta.url), { type: 'module' });
let trainer = null; // the worker training the model shown
let diagram = null; // the phase diagram being drawn: { workers, spec, cells, next, started }

export function initSuperposition() {
  ui.form.addEventListener('submit', train);
  ui.form.addEventListener('input', () => { ui.error.textContent = ''; });
  ui.stop.addEventListener('click', () => stopTraining(t('toy.stopped')));
  ui.phaseForm.addEventListener('submit', drawDiagram);
  ui.phaseStop.addEventListener('click', () => stopDiagram(true));
  ui.canvas.addEventListener('pointermove', pointedCell);
  ui.canvas.addEventListener('keydown', steppedCell);
  ui.canvas.addEventListener('focus', () => diagram && !diagram.at && readCell(0, 0));
}

function train(event) {
  event.preventDefault();
  stopTraining();
  const settings = {
    features: Number(ui.features.value), hidden: Number(ui.hidden.value), sparsity: Number(ui.sparsity.value),
    importance_decay: Number(ui.decay.value), variant: ui.variant.value,
  };
  const steps = Number(ui.steps.value);
  ui.error.textContent = '';
  ui.progress.value = 0;
  trainer = newWorker();
  const started = performance.now();
  trainer.onmessage = ({ data }) => {
    if (data.type === 'status') show(data.status, (performance.now() - started) / 1000);
    else if (data.type === 'done') stopTraining();
    else if (data.type === 'error') fail(ui.error, data.message, stopTraining);
  };
  trainer.onerror = (e) => fail(ui.error, e.message, stopTraining);
  trainer.postMessage({ type: 'train', settings, steps, seed: 1337 });
  setTraining(true);
}

function setTraining(on) {
  ui.train.disabled = on;
  ui.stop.disabled = !on;
}

/** Ends the training worker, if any, and says `why` (else the status stays the last shown). */
function stopTraining(why) {
  trainer?.terminate();
  trainer = null;
  setTraining(false);
  if (why) ui.status.textContent = why;
}

function fail(where, message, stop) {
  where.textContent = message;
  stop();
}

function show(status, seconds) {
  const g = status.geometry;
  ui.progress.value = status.step / status.steps;
  ui.status.textContent = t('toy.status', {
    step: count(status.step), steps: count(status.steps), seconds: elapsed(seconds),
    loss: status.loss === undefined || status.loss === null ? '—' : decimal(status.loss, 5),
    perDimension: decimal(g.features_per_dimension, 2),
  });
  const stored = g.norms.filter((x) => x > STORED).length;
  const outcome = { stored: count(stored), features: count(g.features), hidden: count(g.hidden) };
  ui.outcome.textContent = stored > g.hidden ? t('toy.outcome-superposed', outcome) : t('toy.outcome-separate', outcome);
  drawArrows(g, status.importance, stored);
  fillTable(g, status.importance);
  const n = Math.min(g.features, SHOWN);
  const gram = (r, c) => (c < n ? g.gram[r * g.features + c] : g.b[r]);
  showGrid(ui.gram, {
    caption: t(g.features > SHOWN ? 'toy.gram-first' : 'toy.gram', { shown: count(n), features: count(g.features) }),
    rows: n, cols: n + 1, rowLabel: (r) => String(r + 1), colLabel: (c) => (c < n ? String(c + 1) : 'b'),
    value: gram, text: (v) => decimal(v, 2), scale: extent(g.gram),
  });
}

/** Each feature's direction in the plane as an arrow from the origin (2 dimensions only). */
function drawArrows(g, importance, stored) {
  const plane = g.hidden === 2;
  ui.arrows.hidden = !plane;
  ui.arrowsCaption.textContent = t(plane ? 'toy.directions-caption' : 'toy.directions-need-two');
  if (!plane) return;
  const reach = Math.max(1, ...g.norms);
  const parts = [circle(0, 0, 1 / reach * 1.2, 'toy-unit')];
  for (let i = 0; i < Math.min(g.features, SHOWN); i++) {
    const [x, y] = [g.w[2 * i] / reach * 1.2, -g.w[2 * i + 1] / reach * 1.2];
    const color = PALETTE[i % PALETTE.length];
    parts.push(element('line', { x1: 0, y1: 0, x2: x, y2: y, stroke: color, 'stroke-width': 0.02 + 0.04 * importance[i] }));
    parts.push(circle(x, y, 0.05, '', color));
    const label = element('text', { x: x * 1.15, y: y * 1.15 + 0.05, fill: color, 'font-size': 0.16, 'text-anchor': 'middle' });
    label.textContent = String(i + 1);
    parts.push(label);
  }
  ui.arrows.replaceChildren(...parts);
  ui.arrows.setAttribute('aria-label', t('toy.directions-summary', { features: count(g.features), stored: count(stored) }));
}

function element(name, attributes) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, String(v));
  return el;
}

const circle = (cx, cy, r, className, fill = 'none') => element('circle', { cx, cy, r, class: className, fill });

/** A row per feature: its importance, norm and dimensionality, each with a bar. */
function fillTable(g, importance) {
  const head = document.createElement('tr');
  for (const title of [t('toy.feature'), t('toy.importance'), t('toy.norm'), t('toy.dimensionality')]) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = title;
    head.append(th);
  }
  const rows = [];
  for (let i = 0; i < Math.min(g.features, SHOWN); i++) {
    const tr = document.createElement('tr');
    tr.append(cell(String(i + 1)), cell(decimal(importance[i], 3)), barCell(g.norms[i], 1.5, 2), barCell(g.dimensionality[i], 1, 3));
    rows.push(tr);
  }
  const caption = document.createElement('caption');
  caption.textContent = t('toy.table-caption');
  const body = document.createElement('tbody');
  body.append(...rows);
  ui.table.replaceChildren(caption, head, body);
}

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

/** `value` written with `digits` decimals beside a bar as long as its share of `full`. */
function barCell(value, full, digits) {
  const td = cell(decimal(value, digits));
  const bar = document.createElement('span');
  bar.className = 'toy-bar';
  bar.style.inlineSize = `${Math.round(60 * Math.min(1, Math.max(0, value) / full))}px`;
  td.prepend(bar);
  return td;
}

function drawDiagram(event) {
  event.preventDefault();
  stopDiagram(false);
  const [features, hidden] = ui.shape.value.split('x').map(Number);
  const side = Number(ui.side.value);
  const spec = { features, hidden, side, seed: 1337 };
  const cells = side * side;
  ui.phaseError.textContent = '';
  if (!(Number.isInteger(side) && side >= 2 && side <= 40)) {
    ui.phaseError.textContent = t('toy.side-range', { side: ui.side.value });
    return;
  }
  const workers = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 8, cells));
  diagram = { spec, cells: new Array(cells), done: 0, next: 0, started: performance.now(), workers: [], count: workers };
  paintEmpty(side);
  for (let w = 0; w < workers; w++) {
    const worker = newWorker();
    worker.onmessage = ({ data }) => {
      if (data.type === 'cell') placeCell(data.cell, worker);
      else if (data.type === 'error') fail(ui.phaseError, data.message, () => stopDiagram(false));
    };
    worker.onerror = (e) => fail(ui.phaseError, e.message, () => stopDiagram(false));
    diagram.workers.push(worker);
    handOut(worker);
  }
  ui.draw.disabled = true;
  ui.phaseStop.disabled = false;
  sayDiagram();
}

function handOut(worker) {
  if (diagram.next >= diagram.cells.length) return;
  worker.postMessage({ type: 'cell', spec: diagram.spec, index: diagram.next++ });
}

function placeCell(c, worker) {
  diagram.cells[c.index] = c;
  diagram.done++;
  paintAt(Math.floor(c.index / diagram.spec.side), c.index % diagram.spec.side);
  if (diagram.at?.[0] * diagram.spec.side + diagram.at?.[1] === c.index) readCell(...diagram.at);
  handOut(worker);
  sayDiagram();
  if (diagram.done === diagram.cells.length) stopDiagram(false, true);
}

function stopDiagram(byHand, finished = false) {
  if (!diagram) return;
  for (const worker of diagram.workers) worker.terminate();
  diagram.workers = [];
  ui.draw.disabled = false;
  ui.phaseStop.disabled = true;
  if (byHand || finished) sayDiagram(byHand);
}

function sayDiagram(stopped = false) {
  const tally = { not_stored: 0, alone: 0, superposed: 0 };
  for (const c of diagram.cells) if (c) tally[c.phase]++;
  const seconds = elapsed((performance.now() - diagram.started) / 1000);
  const values = {
    done: count(diagram.done), cells: count(diagram.cells.length), workers: count(diagram.count), seconds,
    notStored: count(tally.not_stored), alone: count(tally.alone), superposed: count(tally.superposed),
  };
  const text = stopped ? t('toy.phase-stopped', values)
    : diagram.done === diagram.cells.length ? t('toy.phase-done', values) : t('toy.phase-progress', values);
  ui.phaseStatus.textContent = text;
  ui.canvas.setAttribute('aria-label', text);
}

function paintEmpty(side) {
  const ctx = ui.canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, ui.canvas.width, ui.canvas.height);
  ctx.strokeStyle = '#d1d5db';
  ctx.strokeRect(0.5, 0.5, ui.canvas.width - 1, ui.canvas.height - 1);
  ui.cellInfo.textContent = '';
  diagram.size = ui.canvas.width / side;
}

/** Paints the cell at `row`, `col` as its model left it (white until it has). */
function paintAt(row, col) {
  const c = diagram.cells[row * diagram.spec.side + col];
  const ctx = ui.canvas.getContext('2d');
  ctx.fillStyle = c ? PHASE_COLORS[c.phase] : '#ffffff';
  ctx.fillRect(col * diagram.size, row * diagram.size, Math.ceil(diagram.size), Math.ceil(diagram.size));
}

/** The cell under the pointer, read. */
function pointedCell(event) {
  if (!diagram) return;
  const box = ui.canvas.getBoundingClientRect();
  const side = diagram.spec.side;
  const col = Math.floor(((event.clientX - box.left) / box.width) * side);
  const row = Math.floor(((event.clientY - box.top) / box.height) * side);
  if (row >= 0 && row < side && col >= 0 && col < side) readCell(row, col);
}

/** Each arrow key's move, in rows and columns: the canvas is drawn left to right in every language. */
const STEPS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/** The arrow keys move from cell to cell. */
function steppedCell(event) {
  if (!diagram || !(event.key in STEPS)) return;
  event.preventDefault();
  const side = diagram.spec.side;
  const [row, col] = diagram.at ?? [0, 0];
  const [dr, dc] = STEPS[event.key];
  readCell(Math.min(side - 1, Math.max(0, row + dr)), Math.min(side - 1, Math.max(0, col + dc)));
}

/** Marks the cell at `row`, `col` and says what its model did with the extra feature. */
function readCell(row, col) {
  const side = diagram.spec.side;
  if (diagram.at) paintAt(...diagram.at);
  diagram.at = [row, col];
  const ctx = ui.canvas.getContext('2d');
  ctx.strokeStyle = '#111827';
  ctx.lineWidth = 2;
  ctx.strokeRect(col * diagram.size + 1, row * diagram.size + 1, diagram.size - 2, diagram.size - 2);
  const c = diagram.cells[row * side + col];
  ui.cellInfo.textContent = c ? t('toy.cell', {
    density: decimal(c.density, 3), importance: decimal(c.importance, 2), phase: PHASE_NAMES[c.phase](),
    norm: decimal(c.norm, 2), dimensionality: decimal(c.dimensionality, 2),
  }) : t('toy.cell-waiting');
}
