// "Superposition": Elhage et al.'s toy model, n sparse features squeezed into m dimensions,
// trained in a worker of its own (toy-worker.js) while the page draws what it stores: each
// feature's direction (in 2 dimensions), norm and dimensionality, and W Wᵀ; and its phase diagram
// (phase-diagram.js); and autoencoders on known features, its hidden layer one source of them
// (toy-autoencoder-panel.js).
import { count, decimal, t, workerUrl } from './i18n.js';
import { duration } from './format.js';
import { showGrid, extent } from './views/grid.js';
import { PALETTE } from './views/plot.js';
import { initPhaseDiagram } from './phase-diagram.js';
import { initToyAutoencoder } from './toy-autoencoder-panel.js';
import { toyTrainer } from './toy-trainer.js';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('toy-form'), features: $('toy-features'), hidden: $('toy-hidden'), sparsity: $('toy-sparsity'),
  decay: $('toy-decay'), variant: $('toy-variant'), steps: $('toy-steps'), train: $('toy-train'), stop: $('toy-stop'),
  status: $('toy-status'), outcome: $('toy-outcome'), progress: $('toy-progress'), error: $('toy-error'), arrows: $('toy-arrows'),
  arrowsCaption: $('toy-arrows-caption'), table: $('toy-table'), gram: $('toy-gram'),
};
/** A feature of this norm or more is stored (as the phase diagram's cells count it). */
const STORED = 0.5;
/** Features the views show at most: a grid of more is not read, only scrolled. */
const SHOWN = 32;
const SVG = 'http://www.w3.org/2000/svg';

/** Seconds to a tenth under a minute (a toy model trains in one or two), else as `duration` says. */
const elapsed = (seconds) => (seconds < 60 ? t('format.seconds', { s: decimal(seconds, 1) }) : duration(seconds));
const newWorker = () => new Worker(workerUrl('./toy-worker.js', import.meta.url), { type: 'module' });
let trainToy; // trains a toy model in a worker of its own (toy-trainer.js)
let settings = null; // the settings of the model shown
let trained = null; // the model last shown, { settings, w }, for an autoencoder on its hidden layer

export function initSuperposition() {
  ui.form.addEventListener('submit', train);
  ui.form.addEventListener('input', () => { ui.error.textContent = ''; });
  trainToy = toyTrainer({
    newWorker, train: ui.train, stop: ui.stop, status: ui.status, error: ui.error, kind: 'toy', show, stopped: () => t('toy.stopped'),
  });
  initPhaseDiagram({ newWorker, elapsed });
  initToyAutoencoder({ newWorker, elapsed, trainedModel: () => trained });
}

function train(event) {
  event.preventDefault();
  settings = {
    features: Number(ui.features.value), hidden: Number(ui.hidden.value), sparsity: Number(ui.sparsity.value),
    importance_decay: Number(ui.decay.value), variant: ui.variant.value,
  };
  ui.progress.value = 0;
  trainToy({ kind: 'model', settings, steps: Number(ui.steps.value), seed: 1337 });
}

function show(status, seconds) {
  const g = status.geometry;
  trained = { settings, w: g.w };
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
