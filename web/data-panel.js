// The data panel: a bundled corpus, pasted or uploaded text, its summary, and a BPE model's merges.
import { summarizeText } from './wasm.js';
import { bytes, count, tokenLabel } from './format.js';
import { textEdited } from './text-fit.js';

const $ = (id) => document.getElementById(id);
const ui = { corpus: $('corpus'), upload: $('upload'), text: $('text'), summary: $('text-summary'), credit: $('corpus-credit') };
const OWN_TEXT = 'own';
const MAX_UPLOAD_BYTES = 50 * 2 ** 20;

let stats = { chars: 0, vocab_size: 0 };
let changed = () => {};
let textTimer = 0; // the text is counted once typing pauses
let corpusLoads = 0; // counts corpus choices: a slower earlier fetch never overwrites a later one

/** The text to train on, as it stands in the box. */
export const trainingText = () => ui.text.value;

/** How long the text is and how many distinct characters it has (a character model's vocabulary). */
export const textStats = () => stats;

/** Where the text came from: a bundled corpus's id and title, or `own`. */
export function corpusChoice() {
  const option = ui.corpus.selectedOptions[0];
  return { id: option.value, title: option.value === OWN_TEXT ? 'Your own text' : option.textContent };
}

/** Puts back a saved run's text, marking its corpus when it was a bundled one. */
export function restoreText(text, corpusId) {
  ui.corpus.value = [...ui.corpus.options].some((o) => o.value === corpusId) ? corpusId : OWN_TEXT;
  ui.text.value = text;
  showCredit('The text this run trains on.');
  textChanged();
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
  link.textContent = corpus.source;
  link.rel = 'noopener';
  ui.credit.replaceChildren(`${corpus.description} Source: `, link, `. License: ${corpus.license}.`);
}

/**
 * Lists the bundled corpora, loads `corpus` (or the first), and calls `onChange` whenever the
 * text changes.
 */
export async function initData(onChange, corpus) {
  changed = onChange;
  const corpora = await (await fetch(new URL('../assets/corpora.json', import.meta.url))).json();
  for (const corpus of corpora) {
    const option = new Option(corpus.title, corpus.id);
    option.dataset.corpus = JSON.stringify(corpus);
    ui.corpus.append(option);
  }
  ui.corpus.append(new Option('Your own text', OWN_TEXT));
  if (corpus && corpora.some((c) => c.id === corpus)) ui.corpus.value = corpus;
  ui.corpus.addEventListener('change', () => loadCorpus().catch((e) => { ui.credit.textContent = e.message; }));
  ui.upload.addEventListener('change', uploadFile);
  ui.text.addEventListener('input', textChanged);
  await loadCorpus();
}

async function loadCorpus() {
  const choice = ui.corpus.selectedOptions[0];
  const load = ++corpusLoads;
  clearTimeout(textTimer); // a count of the old text, due soon, would count "Loading…"
  ui.credit.replaceChildren();
  if (choice.value === OWN_TEXT) {
    ui.text.value = '';
    ui.text.focus();
    showCredit('Paste or upload any UTF-8 text. It never leaves this tab.');
  } else {
    const corpus = JSON.parse(choice.dataset.corpus);
    ui.text.value = 'Loading…';
    // No text to train on until it arrives: this keeps Train disabled meanwhile.
    stats = { chars: 0, vocab_size: 0 };
    ui.summary.textContent = `Loading ${corpus.title}…`;
    changed();
    const response = await fetch(new URL(`../assets/${corpus.file}`, import.meta.url));
    if (!response.ok) throw new Error(`could not load ${corpus.file} (HTTP ${response.status})`);
    const text = await response.text();
    if (load !== corpusLoads) return;
    ui.text.value = text;
    showCredit();
  }
  textChanged();
}

async function uploadFile() {
  const file = ui.upload.files[0];
  if (!file) return;
  ui.upload.value = '';
  if (file.size > MAX_UPLOAD_BYTES) {
    ui.credit.textContent = `${file.name} is ${bytes(file.size)}; the playground takes up to ${bytes(MAX_UPLOAD_BYTES)}.`;
    return;
  }
  try {
    ui.text.value = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
    ui.corpus.value = OWN_TEXT;
    ui.credit.textContent = `Loaded ${file.name}. It never leaves this tab.`;
    textChanged();
  } catch {
    ui.credit.textContent = `${file.name} is not UTF-8 text: save it as UTF-8 plain text and try again.`;
  }
}

function textChanged() {
  clearTimeout(textTimer);
  textTimer = setTimeout(() => {
    stats = summarizeText(ui.text.value);
    ui.summary.textContent = stats.chars === 0 ? 'No text yet.'
      : `${count(stats.chars)} characters · vocabulary of ${stats.vocab_size} distinct characters`;
    changed();
    textEdited(ui.text.value);
  }, 150);
}

/** Lists the BPE merges a model learned, as `left + right → joined`. */
export function showMerges(merges) {
  $('merges').hidden = merges.length === 0;
  $('merges-title').textContent = `Learned byte-pair merges (${count(merges.length)})`;
  $('merges-list').replaceChildren(...merges.slice(0, 500).map(([a, b]) => {
    const item = document.createElement('li');
    item.textContent = `${tokenLabel(a)} + ${tokenLabel(b)} → ${tokenLabel(a + b)}`;
    return item;
  }));
}

/** A line-aligned piece of the training text, about one block long. */
export function corpusSnippet(blockSize) {
  const text = ui.text.value;
  if (text.length <= blockSize) return text;
  const start = Math.floor(Math.random() * (text.length - blockSize));
  const lineStart = text.lastIndexOf('\n', start) + 1;
  return [...text.slice(lineStart, lineStart + blockSize * 2)].slice(0, blockSize).join('');
}
