// The Superposition section's phase diagram: a grid of toy models (toy-worker.js), one per cell,
// each with an extra feature of its own importance and sparsity, the cells shared among as many
// workers as the machine has cores and colored as they arrive; a cell is read by pointing at it,
// or by moving through the grid with the arrow keys.
import { count, decimal, t } from './i18n.js';
import { cellGrid } from './views/cell-grid.js';

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
let diagram = null; // the diagram being drawn or drawn: { spec, cells, done, next, started, workers, count }
let helpers; // the section's: newWorker() and elapsed(seconds)
let grid; // the canvas's cells (views/cell-grid.js)

/** Wires the diagram's form and canvas; `newWorker` starts a toy worker, `elapsed` words seconds. */
export function initPhaseDiagram(sectionHelpers) {
  helpers = sectionHelpers;
  ui.form.addEventListener('submit', drawDiagram);
  ui.stop.addEventListener('click', () => stopDiagram(true));
  const cell = (row, col) => diagram?.cells[row * diagram.spec.side + col];
  grid = cellGrid(ui.canvas, { fill: (row, col) => PHASE_COLORS[cell(row, col)?.phase], read: (row, col) => readCell(cell(row, col)) });
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
  grid.reset(side, side);
  ui.cellInfo.textContent = '';
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
  grid.paint(Math.floor(c.index / diagram.spec.side), c.index % diagram.spec.side);
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

/** Says what cell `c`'s model did with the extra feature (or that it is still training). */
function readCell(c) {
  ui.cellInfo.textContent = c ? t('toy.cell', {
    density: decimal(c.density, 3), importance: decimal(c.importance, 2), phase: PHASE_NAMES[c.phase](),
    norm: decimal(c.norm, 2), dimensionality: decimal(c.dimensionality, 2),
  }) : t('toy.cell-waiting');
}
