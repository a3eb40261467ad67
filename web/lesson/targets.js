// The parts of the page a lesson may name (`@point train`, `@open walk`): a fixed table of names,
// each a control or a region a learner could reach. Pointing scrolls the part into view, marks it
// and focuses it for the keyboard; opening unfolds a section or a view, as a learner's click does.
import { t } from '../i18n.js';
import { labelOf } from '../setting-fields.js';
import { VIEWS } from '../views/index.js';

const $ = (id) => document.getElementById(id);
const section = (titleId) => () => $(titleId)?.closest('section');
const field = (form, name) => () => $(form)?.elements.namedItem(name);

/** Each name: what it is (for messages, worded when asked), its element, and the `<details>` holding it, if any. */
const PLACES = {
  data: [() => t('targets.data'), section('data-title')],
  corpus: [() => t('targets.corpus'), () => $('corpus')],
  text: [() => t('targets.text'), () => $('text')],
  upload: [() => t('targets.upload'), () => $('upload').closest('label')],
  'task-settings': [() => t('targets.task-settings'), () => document.querySelector('.task-fields')],
  merges: [() => t('targets.merges'), () => $('merges'), 'merges'],
  model: [() => t('targets.model'), section('model-title')],
  preset: [() => t('targets.preset'), () => $('preset')],
  'model-size': [() => t('targets.model-size'), () => $('model-size')],
  'copy-link': [() => t('targets.copy-link'), () => $('copy-link')],
  runs: [() => t('targets.runs'), section('runs-title')],
  train: [() => t('targets.train'), () => $('train')],
  pause: [() => t('targets.pause'), () => $('pause')],
  resume: [() => t('targets.resume'), () => $('resume')],
  reset: [() => t('targets.reset'), () => $('reset')],
  save: [() => t('targets.save'), () => $('save')],
  export: [() => t('targets.export'), () => $('export')],
  load: [() => t('targets.load'), () => $('load').closest('label')],
  progress: [() => t('targets.progress'), () => $('stats')],
  'train-error': [() => t('targets.train-error'), () => $('train-error')],
  chart: [() => t('targets.chart'), () => $('loss-chart')],
  'chart-axis': [() => t('targets.chart-axis'), () => $('chart-axis')],
  sample: [() => t('targets.sample'), section('sample-title')],
  prompt: [() => t('targets.prompt'), () => $('prompt')],
  temperature: [() => t('targets.temperature'), field('sample-form', 'temperature')],
  top_k: [() => t('targets.top_k'), field('sample-form', 'top_k')],
  length: [() => t('targets.length'), field('sample-form', 'max_new_tokens')],
  'sample-seed': [() => t('targets.sample-seed'), field('sample-form', 'seed')],
  generate: [() => t('targets.generate'), () => $('generate')],
  'sample-output': [() => t('targets.sample-output'), () => $('sample-output')],
  'next-tokens': [() => t('targets.next-tokens'), () => $('next-tokens').closest('figure')],
  problem: [() => t('targets.problem'), () => $('problem')],
  solve: [() => t('targets.solve'), () => $('solve')],
  solutions: [() => t('targets.solutions'), () => $('solutions')],
  attention: [() => t('targets.attention'), section('attention-title')],
  'attention-text': [() => t('targets.attention-text'), () => $('attention-text')],
  'attention-grid': [() => t('targets.attention-grid'), () => $('attention-grid')],
  inside: [() => t('targets.inside'), () => $('inside'), 'inside'],
  probe: [() => t('targets.probe'), () => $('probe'), 'inside'],
  walk: [() => t('targets.walk'), () => $('walk'), 'walk'],
  'walk-tokens': [() => t('targets.walk-tokens'), () => $('walk-tokens'), 'walk'],
  'walk-forward': [() => t('targets.walk-forward'), () => $('walk-forward'), 'walk'],
  'walk-draw': [() => t('targets.walk-draw'), () => $('walk-draw').closest('figure'), 'walk'],
  'walk-backward': [() => t('targets.walk-backward'), () => $('walk-step'), 'walk'],
  'walk-params': [() => t('targets.walk-params'), () => $('walk-params'), 'walk'],
  superposition: [() => t('targets.superposition'), () => $('toy'), 'toy'],
  'toy-train': [() => t('targets.toy-train'), () => $('toy-train'), 'toy'],
  'toy-sparsity': [() => t('targets.toy-sparsity'), () => $('toy-sparsity').closest('label'), 'toy'],
  'toy-arrows': [() => t('targets.toy-arrows'), () => $('toy-arrows').closest('figure'), 'toy'],
  'toy-phase': [() => t('targets.toy-phase'), () => $('toy-phase-canvas').closest('figure'), 'toy'],
  'toy-autoencoder': [() => t('targets.toy-autoencoder'), () => $('toy-sae-form'), 'toy'],
  'toy-latents': [() => t('targets.toy-latents'), () => $('toy-sae-expansion').closest('label'), 'toy'],
  'toy-match': [() => t('targets.toy-match'), () => $('toy-sae-figure'), 'toy'],
  graph: [() => t('targets.graph'), () => $('graph'), 'graph'],
  'graph-train': [() => t('targets.graph-train'), () => $('graph-train'), 'graph'],
  'graph-prompt': [() => t('targets.graph-prompt'), () => $('graph-prompt'), 'graph'],
};
for (const View of VIEWS) {
  PLACES[View.key] = [() => t('targets.view', { title: View.title }), () => document.querySelector(`[data-view="${View.key}"]`), 'inside', View.key];
}
/** Every part a lesson may name, besides the model's settings by their names. */
export const TARGETS = Object.keys(PLACES);

/** When the parts a run of one kind lacks are shown. */
const TASK_ONLY = () => t('targets.task-only');
const TEXT_ONLY = () => t('targets.text-only');
const SHOWN_WHEN = {
  ...Object.fromEntries(['problem', 'solve', 'solutions', 'task-settings'].map((n) => [n, TASK_ONLY])),
  ...Object.fromEntries(['text', 'upload', 'prompt', 'temperature', 'top_k', 'length', 'sample-seed', 'generate', 'sample-output', 'next-tokens'].map((n) => [n, TEXT_ONLY])),
  merges: () => t('targets.bpe-only'),
};

/** The model form's fields, by their names (`learning_rate`), and the task's (by form attribute). */
const formField = (name) => {
  const el = $('config').elements.namedItem(name);
  return el?.closest ? el : null;
};

/** The part called `name`: `{ what, element(), opens }`, or null when the page has none. */
export function target(name) {
  const place = PLACES[name];
  if (place) {
    const [what, element, inside, view] = place;
    return { what: what(), element, opens: [inside, view].filter(Boolean) };
  }
  const el = formField(name);
  if (!el) return null;
  return { what: t('targets.setting', { label: labelOf(el) }), element: () => formField(name), opens: [] };
}

/** Why `name` cannot be named by `directive` (open, point, wait), or '' when it can. */
export function targetProblem(directive, name) {
  const found = target(name);
  if (!found) return t('targets.unknown', { name, names: TARGETS.join(', ') });
  if (directive !== 'point' && found.opens.length === 0) return t('targets.always-open', { what: found.what, name });
  return '';
}

/** Whether the part called `name` is open (its sections unfolded). */
export function isOpen(name) {
  const found = target(name);
  return Boolean(found) && found.opens.every((key) => detailsOf(key)?.open);
}

const detailsOf = (key) => (['inside', 'walk', 'merges', 'toy', 'graph'].includes(key) ? $(key) : document.querySelector(`[data-view="${key}"]`));

/** Unfolds what holds the part called `name`, as a learner's click on each summary would. */
export function openTarget(name) {
  for (const key of target(name)?.opens ?? []) {
    const details = detailsOf(key);
    if (details && !details.open) details.open = true; // fires toggle: the section asks for its data
  }
}

let marked = [];

/**
 * Marks the parts called `names`, scrolls the first into view and, with `focus`, moves the
 * keyboard to it. Returns why any cannot be shown now (hidden: it belongs to a task's run, or a
 * text's), or [].
 */
export function pointAt(names, { focus = false } = {}) {
  unmark();
  const problems = [];
  for (const name of names) {
    const found = target(name);
    const el = found?.element();
    openTarget(name);
    if (!el || el.closest('[hidden]') || el.getClientRects().length === 0) {
      problems.push(t('targets.not-shown', { what: found?.what ?? name, why: SHOWN_WHEN[name]?.() ?? t('targets.not-on-page') }));
      continue;
    }
    el.classList.add('lesson-target');
    if (marked.length === 0) show(el, focus);
    marked.push(el);
  }
  return problems;
}

/** Space kept above a part scrolled to the top of the screen, for its outline. */
const ROOM_ABOVE = 12;
/** How long a smooth scroll takes to settle, after which a part is checked to be in its place. */
const SETTLE_MS = 800;

/**
 * How far to scroll for `el` to sit in the room the screen has above a lesson's sheet (the whole
 * height beside a panel): centred where it fits, else its top (its title and controls) at the top.
 */
function offset(el) {
  const sheet = document.getElementById('lesson').getBoundingClientRect();
  const sheetBelow = sheet.height > 0 && sheet.bottom >= innerHeight - 1 && sheet.left <= 0;
  const room = (sheetBelow ? sheet.top : innerHeight) - ROOM_ABOVE;
  const box = el.getBoundingClientRect();
  return box.height <= room ? box.top - ROOM_ABOVE - (room - box.height) / 2 : box.top - ROOM_ABOVE;
}

/** Scrolls `el` into the room above a lesson's sheet (see `offset`), and with `focus` moves the keyboard to it. */
function show(el, focus) {
  const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
  window.scrollBy({ top: offset(el), behavior: still ? 'auto' : 'smooth' });
  // The page may move under a smooth scroll (a run's lines grow as it trains): once it settles,
  // the part is put where it belongs if it is not there.
  const settle = () => {
    const off = offset(el);
    if (Math.abs(off) > 2) window.scrollBy({ top: off, behavior: 'auto' });
  };
  if (!still) setTimeout(settle, SETTLE_MS);
  if (!focus) return;
  if (!el.matches('input, select, textarea, button, a[href], details, label')) el.tabIndex = -1; // a region takes focus too
  const control = el.matches('details') ? el.querySelector('summary') : el.matches('label') ? el.querySelector('input') : el;
  control.focus({ preventScroll: true });
}

/** Takes the marks off the parts last pointed at. */
export function unmark() {
  marked.forEach((el) => el.classList.remove('lesson-target'));
  marked = [];
}
