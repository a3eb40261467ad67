// The parts of the page a lesson may name (`@point train`, `@open walk`): a fixed table of names,
// each a control or a region a learner could reach. Pointing scrolls the part into view, marks it
// and focuses it for the keyboard; opening unfolds a section or a view, as a learner's click does.
import { VIEWS } from '../views/index.js';

const $ = (id) => document.getElementById(id);
const section = (titleId) => () => $(titleId)?.closest('section');
const field = (form, name) => () => $(form)?.elements.namedItem(name);

/** Each name: what it is (for messages), its element, and the `<details>` holding it, if any. */
const PLACES = {
  data: ['the Data section', section('data-title')],
  corpus: ['the Corpus menu', () => $('corpus')],
  text: ['the training text', () => $('text')],
  upload: ['the Upload button', () => $('upload').closest('label')],
  'task-settings': ["the task's settings", () => document.querySelector('.task-fields')],
  merges: ['the learned byte-pair merges', () => $('merges'), 'merges'],
  model: ['the Model section', section('model-title')],
  preset: ['the Preset menu', () => $('preset')],
  'model-size': ["the model's size", () => $('model-size')],
  'copy-link': ['Copy link to this setup', () => $('copy-link')],
  runs: ['Saved runs', section('runs-title')],
  train: ['the Train button', () => $('train')],
  pause: ['the Pause button', () => $('pause')],
  resume: ['the Resume button', () => $('resume')],
  reset: ['the Reset button', () => $('reset')],
  save: ['Save checkpoint', () => $('save')],
  export: ['Export for nanoGPT and Transformers', () => $('export')],
  load: ['Load checkpoint', () => $('load').closest('label')],
  progress: ["training's progress", () => $('stats')],
  'train-error': ['the message under the training controls', () => $('train-error')],
  chart: ['the loss chart', () => $('loss-chart')],
  'chart-axis': ['the chart axis menu', () => $('chart-axis')],
  sample: ['the Sample section', section('sample-title')],
  prompt: ['the Prompt box', () => $('prompt')],
  temperature: ["the sample's Temperature", field('sample-form', 'temperature')],
  top_k: ["the sample's Top-k", field('sample-form', 'top_k')],
  length: ["the sample's Length", field('sample-form', 'max_new_tokens')],
  'sample-seed': ["the sample's Seed", field('sample-form', 'seed')],
  generate: ['the Generate button', () => $('generate')],
  'sample-output': ['the generated text', () => $('sample-output')],
  'next-tokens': ['the most likely next tokens', () => $('next-tokens').closest('figure')],
  problem: ['the Problem box', () => $('problem')],
  solve: ['the Solve button', () => $('solve')],
  solutions: ['the held-out problems', () => $('solutions')],
  attention: ['the Attention section', section('attention-title')],
  'attention-text': ["the attention's text", () => $('attention-text')],
  'attention-grid': ['the attention maps', () => $('attention-grid')],
  inside: ['Inside the model', () => $('inside'), 'inside'],
  probe: ['the Probe text', () => $('probe'), 'inside'],
  walk: ['Walk through the model', () => $('walk'), 'walk'],
  'walk-tokens': ['the tokens to follow', () => $('walk-tokens'), 'walk'],
  'walk-forward': ["the walk's forward pass", () => $('walk-forward'), 'walk'],
  'walk-draw': ["the walk's draw", () => $('walk-draw').closest('figure'), 'walk'],
  'walk-backward': ["the walk's training step", () => $('walk-step'), 'walk'],
  'walk-params': ["each weight's gradient and update", () => $('walk-params'), 'walk'],
};
for (const View of VIEWS) {
  PLACES[View.key] = [`the view "${View.title}"`, () => document.querySelector(`[data-view="${View.key}"]`), 'inside', View.key];
}
/** Every part a lesson may name, besides the model's settings by their names. */
export const TARGETS = Object.keys(PLACES);

/** When the parts a run of one kind lacks are shown. */
const TASK_ONLY = "it shows when the corpus is a task (the Corpus menu's Tasks)";
const TEXT_ONLY = 'it shows when the corpus is a text, not a task';
const SHOWN_WHEN = {
  ...Object.fromEntries(['problem', 'solve', 'solutions', 'task-settings'].map((n) => [n, TASK_ONLY])),
  ...Object.fromEntries(['text', 'upload', 'prompt', 'temperature', 'top_k', 'length', 'sample-seed', 'generate', 'sample-output', 'next-tokens'].map((n) => [n, TEXT_ONLY])),
  merges: 'it shows once a model with byte-pair (BPE) tokens is built',
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
    return { what, element, opens: [inside, view].filter(Boolean) };
  }
  const el = formField(name);
  if (!el) return null;
  const label = [...el.closest('label').childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(' ').trim();
  return { what: `the ${label || name} setting`, element: () => formField(name), opens: [] };
}

/** Why `name` cannot be named by `directive` (open, point, wait), or '' when it can. */
export function targetProblem(directive, name) {
  const found = target(name);
  if (!found) return `the page has no part called "${name}"; it has ${TARGETS.join(', ')}, and the model's settings by name (such as learning_rate)`;
  if (directive !== 'point' && found.opens.length === 0) return `${found.what} is always open: point at it with @point ${name}`;
  return '';
}

/** Whether the part called `name` is open (its sections unfolded). */
export function isOpen(name) {
  const found = target(name);
  return Boolean(found) && found.opens.every((key) => detailsOf(key)?.open);
}

const detailsOf = (key) => (key === 'inside' || key === 'walk' || key === 'merges' ? $(key) : document.querySelector(`[data-view="${key}"]`));

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
      problems.push(`${found?.what ?? name} is not shown now: ${SHOWN_WHEN[name] ?? 'it is not on the page'}`);
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

/**
 * Scrolls `el` into the room the screen has above a lesson's sheet (the whole height beside a
 * panel): centred where it fits, else its top (its title and controls) at the top.
 */
function show(el, focus) {
  const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
  const sheet = document.getElementById('lesson').getBoundingClientRect();
  const sheetBelow = sheet.height > 0 && sheet.bottom >= innerHeight - 1 && sheet.left <= 0;
  const room = (sheetBelow ? sheet.top : innerHeight) - ROOM_ABOVE;
  const box = el.getBoundingClientRect();
  const top = box.height <= room ? box.top - ROOM_ABOVE - (room - box.height) / 2 : box.top - ROOM_ABOVE;
  window.scrollBy({ top, behavior: still ? 'auto' : 'smooth' });
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
