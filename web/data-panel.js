// The data panel: a bundled corpus, pasted or uploaded text, or a task (task-panel.js shows its
// settings); the text's summary, and a BPE model's merges.
import { coreText, t, tParts } from './i18n.js';
import { catalog } from './wasm.js';
import { bytes, count, tokenLabel } from './format.js';
import { countText } from './text-count.js';
import { state } from './phase.js';

const $ = (id) => document.getElementById(id);
const ui = {
  corpus: $('corpus'), upload: $('upload'), text: $('text'), summary: $('text-summary'), credit: $('corpus-credit'),
  textPanel: $('text-panel'), taskPanel: $('task-panel'), uploadButton: $('upload').closest('label'),
};
const OWN_TEXT = 'own';
/** A task's menu value is this and its name: `task:reverse`. */
const TASK = 'task:';
/** Measured: a 100 MB text counts in about a second and trains in about 320 MiB of wasm memory. */
const MAX_UPLOAD_BYTES = 128 * 2 ** 20;
/** A text longer than this (in UTF-16 units) is held aside, and the box shows only its start. */
const BOX_LIMIT = 1_000_000;
const SHOWN = 100_000;

let stats = { chars: 0, vocab_size: 0 };
let changed = () => {};
let counted = () => {}; // told each text once it is counted
let textTimer = 0; // the text is counted once typing pauses
let textVersion = 0; // counts text changes: a count that ends after a change is not this text's
let corpusLoads = 0; // counts corpus choices: a slower earlier fetch never overwrites a later one
let held = null; // a text too long for the box, which shows its start

/** The task chosen in the Corpus menu (its name), or null for a text. */
export const taskChoice = () => (ui.corpus.value.startsWith(TASK) ? ui.corpus.value.slice(TASK.length) : null);

/** The text to train on, as it stands in the box (none for a task). */
export const trainingText = () => (taskChoice() ? '' : held ?? ui.text.value);

/**
 * Puts `text` in the box, or, when it is too long to edit there, holds it and shows its start
 * (read-only); then counts it.
 */
export function replaceText(text) {
  held = text.length > BOX_LIMIT ? text : null;
  ui.text.readOnly = held !== null;
  ui.text.value = held === null ? text : text.slice(0, SHOWN);
  textChanged();
}

/** How long the text is and how many distinct characters it has (a character model's vocabulary). */
export const textStats = () => stats;

/** Where the text came from: a bundled corpus's id and title, `own`, or a task's (`task:reverse`). */
export function corpusChoice() {
  const option = ui.corpus.selectedOptions[0];
  return { id: option.value, title: option.value === OWN_TEXT ? t('data.own-text') : option.textContent };
}

/** Puts back a saved run's text, marking its corpus when it was a bundled one (or its task). */
export function restoreText(text, corpusId) {
  corpusLoads++; // a corpus still loading (the first visit's) must not replace the run's text
  ui.corpus.value = [...ui.corpus.options].some((o) => o.value === corpusId) ? corpusId : OWN_TEXT;
  showPanel();
  if (taskChoice()) {
    state.textPending = false;
    return;
  }
  showCredit(t('data.credit-run'));
  replaceText(text);
}

/** Chooses `task` in the Corpus menu, as a run or preset that trains on it does. */
export function chooseTask(task) {
  const value = `${TASK}${task}`;
  if (taskChoice() === task || ![...ui.corpus.options].some((o) => o.value === value)) return;
  corpusLoads++; // nor a task's choice
  ui.corpus.value = value;
  state.textPending = false;
  showPanel();
  changed();
}

/** Shows the text box for a text, the task's settings for a task. */
function showPanel() {
  const task = Boolean(taskChoice());
  ui.textPanel.hidden = task;
  ui.uploadButton.hidden = task;
  ui.taskPanel.hidden = !task;
}

/** Credits the chosen bundled corpus with a link to its source, or says `ownText` for a person's own. */
function showCredit(ownText) {
  const choice = ui.corpus.selectedOptions[0];
  if (choice.value === OWN_TEXT) {
    ui.credit.textContent = ownText;
    return;
  }
  const corpus = JSON.parse(choice.dataset.corpus);
  const link = document.createElement('a');
  link.href = corpus.url;
  link.textContent = coreText(corpus.source);
  link.rel = 'noopener';
  ui.credit.replaceChildren(...tParts('data.credit', { description: coreText(corpus.description), link, license: corpus.license }));
}

/**
 * Lists the bundled corpora and the tasks, loads `corpus` (or the first), and calls `onChange`
 * whenever the text changes, and `onChosen` when the person picks another corpus or task.
 */
export async function initData(onChange, corpus, onChosen) {
  changed = onChange;
  const corpora = await (await fetch(new URL('../assets/corpora.json', import.meta.url))).json();
  const texts = document.createElement('optgroup');
  texts.label = t('data.group-texts');
  for (const corpus of corpora) {
    const option = new Option(coreText(corpus.title), corpus.id);
    option.dataset.corpus = JSON.stringify(corpus);
    texts.append(option);
  }
  texts.append(new Option(t('data.own-text'), OWN_TEXT));
  const taskGroup = document.createElement('optgroup');
  taskGroup.label = t('data.group-tasks');
  taskGroup.append(...catalog().tasks.map((task) => new Option(t('data.task-option', { title: coreText(task.title) }), `${TASK}${task.name}`)));
  ui.corpus.append(texts, taskGroup);
  if (corpus && [...ui.corpus.options].some((o) => o.value === corpus)) ui.corpus.value = corpus;
  chosen = onChosen;
  ui.corpus.addEventListener('change', corpusPicked);
  ui.upload.addEventListener('change', uploadFile);
  // A text pasted too long to edit here is held aside too.
  ui.text.addEventListener('input', () => (ui.text.value.length > BOX_LIMIT ? replaceText(ui.text.value) : textChanged()));
  await loadCorpus();
}

let chosen = () => {};
const corpusPicked = () => loadCorpus().then(chosen).catch((e) => { ui.credit.textContent = e.message; });

/** Picks `id` (a bundled corpus or `task:name`) in the Corpus menu as a person would; resolves once it is loaded. */
export function chooseCorpus(id) {
  ui.corpus.value = id;
  return corpusPicked();
}

async function loadCorpus() {
  const choice = ui.corpus.selectedOptions[0];
  const load = ++corpusLoads;
  clearTimeout(textTimer); // a count of the old text, due soon, would count "Loading…"
  ui.credit.replaceChildren();
  showPanel();
  if (taskChoice()) {
    state.textPending = false; // a task makes its own problems: nothing to load or count
    changed();
    return;
  }
  if (choice.value === OWN_TEXT) {
    replaceText('');
    ui.text.focus();
    showCredit(t('data.credit-own'));
    return;
  }
  const corpus = JSON.parse(choice.dataset.corpus);
  replaceText(t('data.loading'));
  clearTimeout(textTimer);
  // No text to train on until it arrives: this keeps Train disabled meanwhile.
  uncounted(t('data.loading-corpus', { title: coreText(corpus.title) }));
  const response = await fetch(new URL(`../assets/${corpus.file}`, import.meta.url));
  if (!response.ok) throw new Error(t('data.load-failed', { file: corpus.file, status: response.status }));
  const text = await response.text();
  if (load !== corpusLoads) return;
  showCredit();
  replaceText(text);
}

/** No text to train on until `summary` is done (Train stays disabled, saying why). */
function uncounted(summary, pending = true) {
  stats = { chars: 0, vocab_size: 0 };
  state.textPending = pending;
  ui.summary.textContent = summary;
  changed();
}

async function uploadFile() {
  const file = ui.upload.files[0];
  if (!file) return;
  ui.upload.value = '';
  if (file.size > MAX_UPLOAD_BYTES) {
    ui.credit.textContent = t('data.too-big', { file: file.name, size: bytes(file.size), limit: bytes(MAX_UPLOAD_BYTES) });
    return;
  }
  try {
    uncounted(t('data.reading', { file: file.name }));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
    ui.corpus.value = OWN_TEXT;
    ui.credit.textContent = t('data.loaded-file', { file: file.name });
    replaceText(text);
  } catch {
    textChanged(); // the text in the box stays, counted again
    ui.credit.textContent = t('data.not-utf8', { file: file.name });
  }
}

/** Counts the text once typing pauses (in a worker, with progress for a long one), then says so. */
function textChanged() {
  clearTimeout(textTimer);
  const version = ++textVersion;
  if (!state.textPending) {
    state.textPending = true;
    changed();
  }
  textTimer = setTimeout(async () => {
    const text = trainingText();
    if (held !== null) uncounted(t('data.counting'));
    const result = await countText(text, (done) => {
      if (held !== null) ui.summary.textContent = t('data.counting-percent', { percent: Math.floor(done * 100) });
    }).catch((e) => ({ error: e.message }));
    if (result === null || version !== textVersion) return; // the text changed while it was counted
    if (result.error) {
      uncounted(t('data.count-failed', { reason: result.error }), false);
      return;
    }
    stats = result;
    state.textPending = false;
    const numbers = { chars: count(stats.chars), vocab: stats.vocab_size, shown: count(SHOWN) };
    ui.summary.textContent = stats.chars === 0 ? t('data.no-text')
      : held === null ? t('data.summary', numbers) : t('data.summary-shown', numbers);
    changed();
    counted(text);
  }, 150);
}

/** Calls `onCounted(text)` with each new text once it is counted. */
export function onTextCounted(onCounted) {
  counted = onCounted;
}

/** Lists the BPE merges a model learned, as `left + right → joined`. */
export function showMerges(merges) {
  $('merges').hidden = merges.length === 0;
  $('merges-title').textContent = t('data.merges-count', { n: count(merges.length) });
  $('merges-list').replaceChildren(...merges.slice(0, 500).map(([a, b]) => {
    const item = document.createElement('li');
    item.textContent = `${tokenLabel(a)} + ${tokenLabel(b)} → ${tokenLabel(a + b)}`;
    return item;
  }));
}

/** A line-aligned piece of the training text, about one block long. */
export function corpusSnippet(blockSize) {
  const text = trainingText();
  if (text.length <= blockSize) return text;
  const start = Math.floor(Math.random() * (text.length - blockSize));
  const lineStart = text.lastIndexOf('\n', start) + 1;
  return [...text.slice(lineStart, lineStart + blockSize * 2)].slice(0, blockSize).join('');
}
