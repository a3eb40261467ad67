// The Superposition section's phase diagram: a grid of toy models (toy-worker.js), one per cell,
// each with an extra feature of its own importance and sparsity, the cells shared among as many
// workers as the machine has cores and colored as they arrive; a cell is read by pointing at it,
// or by moving through the grid with the arrow keys.
import { count, decimal, t } from './i18n.js';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('toy-phase-form'), shape: $('toy-phase-shape'), side: $('toy-phase-side'), draw: $('toy-phase-draw'),
  stop: $('toy-phase-stop'), status: $('toy-phase-status'), error: $('toy-phase-error'),
  canvas: $('toy-phase-canvas'), cellInfo: $('toy-phase-cell'),
};
/** The phase colours, as the legend's swatches (style.css). */
const PHASE_COLORS = { not_stored: '#e5e7eb', alone: '#2563eb', superposed: '#ea580c' };
/** Each phase in words, as the legend says it. */
const PHASE_NAMES = { not_stored: () => t('toy.not-stored'), alone: () => t('toy.alone'), superposed: () => t('toy.superposed') };
let diagram = null; // the diagram being drawn or drawn: { spec, cells, done, next, started, workers, count, size, at }
let helpers; // the section's: newWorker() and elapsed(seconds)

/** Wires the diagram's form and canvas; `newWorker` starts a toy worker, `elapsed` words seconds. */
export function initPhaseDiagram(sectionHelpers) {
  helpers = sectionHelpers;
  ui.form.addEventListener('submit', drawDiagram);
  ui.stop.addEventListener('click', () => stopDiagram(true));
  ui.canvas.addEventListener('pointermove', pointedCell);
  ui.canvas.addEventListener('keydown', steppedCell);
  ui.canvas.addEventListener('focus', () => diagram && !diagram.at && readCell(0, 0));
}

function drawDiagram(event) {
  event.preventDefault();
  stopDiagram(false);
  const [features, hidden] = ui.shape.value.split('x').map(Number);
  const side = Number(ui.side.value);
  const spec = { features, hidden, side, seed: 1337 };
  const cells = side * side;
  ui.error.textContent = '';
  if (!(Number.isInteger(side) && side >= 2 && side <= 40)) {
    ui.error.textContent = t('toy.side-range', { side: ui.side.value });
    return;
  }
  const workers = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 8, cells));
  diagram = { spec, cells: new Array(cells), done: 0, next: 0, started: performance.now(), workers: [], count: workers };
  paintEmpty(side);
  for (let w = 0; w < workers; w++) {
    const worker = helpers.newWorker();
    worker.onmessage = ({ data }) => {
      if (data.type === 'cell') placeCell(data.cell, worker);
      else if (data.type === 'error') fail(data.message);
    };
    worker.onerror = (e) => fail(e.message);
    diagram.workers.push(worker);
    handOut(worker);
  }
  ui.draw.disabled = true;
  ui.stop.disabled = false;
  sayDiagram();
}

function fail(message) {
  ui.error.textContent = message;
  stopDiagram(false);
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
  ui.stop.disabled = true;
  if (byHand || finished) sayDiagram(byHand);
}

function sayDiagram(stopped = false) {
  const tally = { not_stored: 0, alone: 0, superposed: 0 };
  for (const c of diagram.cells) if (c) tally[c.phase]++;
  const seconds = helpers.elapsed((performance.now() - diagram.started) / 1000);
  const values = {
    done: count(diagram.done), cells: count(diagram.cells.length), workers: count(diagram.count), seconds,
    notStored: count(tally.not_stored), alone: count(tally.alone), superposed: count(tally.superposed),
  };
  const text = stopped ? t('toy.phase-stopped', values)
    : diagram.done === diagram.cells.length ? t('toy.phase-done', values) : t('toy.phase-progress', values);
  ui.status.textContent = text;
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
