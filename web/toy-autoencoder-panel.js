// The Superposition section's autoencoders on known features: activations built from features
// whose directions are known (as SAELens's generator builds them), or the toy model's own hidden
// layer, learned by an autoencoder in a toy worker and scored against the truth while it trains:
// how many true features it found, beside how well it reconstructs; the match grid shows the first
// true features against the latents matched to them.
import { count, decimal, t } from './i18n.js';
import { fillMeasures, percent } from './feature-card.js';
import { architectureOf, showKindInputs } from './sae-kind.js';
import { cellGrid } from './views/cell-grid.js';
import { toyTrainer } from './toy-trainer.js';
import { diverging } from './views/plot.js';

const $ = (id) => document.getElementById(id);
const ui = {
  form: $('toy-sae-form'), source: $('toy-sae-source'), train: $('toy-sae-train'), stop: $('toy-sae-stop'),
  status: $('toy-sae-status'), progress: $('toy-sae-progress'), error: $('toy-sae-error'), scores: $('toy-sae-scores'),
  figure: $('toy-sae-figure'), canvas: $('toy-sae-grid'), cell: $('toy-sae-cell'), absorptionNote: $('toy-sae-absorption-note'),
};
let helpers; // the section's: newWorker(), elapsed(seconds) and trainedModel() (the toy model last shown)
let trainSae; // trains an autoencoder in a toy worker (toy-trainer.js)
let shown = null; // the last status shown
let before = null; // what the status said before a job was asked for, until it first reports or is refused
let grid; // the match grid's cells (views/cell-grid.js)

/** Wires the form; `sectionHelpers` are the Superposition section's. */
export function initToyAutoencoder(sectionHelpers) {
  helpers = sectionHelpers;
  ui.form.addEventListener('submit', train);
  ui.form.addEventListener('input', () => { ui.error.textContent = ''; });
  trainSae = toyTrainer({
    newWorker: helpers.newWorker, train: ui.train, stop: ui.stop, status: ui.status, error: ui.error, kind: 'autoencoder', show,
    stopped: () => t('toy.sae-stopped'), refused: () => before ?? undefined, // a job refused before it began: the last words stay
  });
  showKindInputs(ui.form);
  const built = () => { for (const el of ui.form.querySelectorAll('.toy-sae-built')) el.hidden = ui.source.value !== 'synthetic'; };
  ui.source.addEventListener('change', built);
  built();
  const cosine = (row, col) => shown.grid.cosines[row * shown.grid.latents.length + col];
  grid = cellGrid(ui.canvas, { fill: (row, col) => `rgb(${diverging(cosine(row, col))})`, read: readCell });
}

/** The activations the form asks for, in the core's terms (`toy::KnownSource`), or null. */
function source() {
  if (ui.source.value === 'hidden') {
    const model = helpers.trainedModel();
    return model && { kind: 'hidden', settings: model.settings, w: model.w };
  }
  const f = ui.form.elements;
  const spec = {
    features: Number(f.features.value), dims: Number(f.dims.value), orthogonal: f.directions.value === 'apart',
    firing: { kind: 'equal', probability: Number(f.firing.value) }, magnitude_mean: 1, magnitude_std: 0,
    children: Number(f.children.value), correlation: correlation(Number(f.correlation.value)), seed: 1337,
  };
  return { kind: 'synthetic', spec };
}

/** Shared factors of a correlation the page asks for (SAELens's low rank). */
const FACTORS = 16;

/** Features loading on the shared factors with spread `scale`, or none at 0. */
function correlation(scale) {
  return scale === 0 ? null : { rank: FACTORS, scale };
}

function train(event) {
  event.preventDefault();
  const from = source();
  if (!from) {
    ui.error.textContent = t('toy.sae-train-model-first');
    return;
  }
  const f = ui.form.elements;
  ui.progress.value = 0;
  before = ui.status.textContent;
  ui.status.textContent = t('toy.sae-starting');
  trainSae({
    kind: 'autoencoder', source: from, architecture: architectureOf(ui.form),
    expansion: Number(f.expansion.value), steps: Number(f.steps.value), seed: 1337,
  });
}

function show(status, seconds) {
  before = null;
  const s = status.scores;
  const truth = s.truth;
  const features = truth.best_cosine.length;
  const found = Math.round(truth.found * features);
  ui.progress.value = s.step / status.steps;
  ui.status.textContent = t('toy.sae-status', {
    step: count(s.step), steps: count(status.steps), seconds: helpers.elapsed(seconds),
    found: count(found), features: count(features),
  });
  const items = [
    ['MCC', decimal(truth.mcc, 3), t('toy.sae-mcc-about')],
    [t('toy.sae-found'), percent(truth.found), t('toy.sae-found-about')],
    [t('toy.sae-uniqueness'), percent(truth.uniqueness), t('toy.sae-uniqueness-about')],
    [t('features.variance'), percent(s.explained_variance), t('features.variance-about')],
    ['L0', s.true_l0 === null || s.true_l0 === undefined ? decimal(s.l0, 2)
      : t('toy.sae-l0', { l0: decimal(s.l0, 2), truth: decimal(s.true_l0, 2) }), t('toy.sae-l0-about')],
    [t('features.dead'), percent(s.dead), t('toy.sae-dead-about')],
    [t('features.dense'), percent(s.dense), t('features.dense-about')],
  ];
  const absorbs = s.absorption !== null && s.absorption !== undefined;
  if (absorbs) items.push([t('toy.sae-absorption'), percent(s.absorption), t('toy.sae-absorption-about')]);
  ui.absorptionNote.hidden = !absorbs;
  fillMeasures(ui.scores, items);
  const fresh = shown?.grid.latents.length !== status.grid.latents.length;
  shown = status;
  const n = status.grid.latents.length;
  if (fresh) grid.reset(n, n);
  grid.paintAll();
  ui.figure.hidden = false;
  const diagonal = status.grid.latents.filter((j, i) => j !== null && status.grid.cosines[i * n + i] >= 0.9).length;
  ui.canvas.setAttribute('aria-label', t('toy.sae-grid-summary', { shown: count(n), features: count(features), found: count(diagonal) }));
}

/** Says how close true feature `row` is to the latent matched to feature `col`. */
function readCell(row, col) {
  const latent = shown.grid.latents[col];
  const cosine = decimal(shown.grid.cosines[row * shown.grid.latents.length + col], 3);
  ui.cell.textContent = latent === null || latent === undefined
    ? t('toy.sae-cell-unmatched', { feature: count(row + 1), matchedTo: count(col + 1) })
    : t('toy.sae-cell', { feature: count(row + 1), latent: count(latent), matchedTo: count(col + 1), cosine });
}
