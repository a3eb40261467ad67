// Saved runs: every run this browser keeps, newest first, to open, rename, download or delete,
// and to overlay on the loss chart for comparing how settings trained.
import { dateTime, decimal, t } from './i18n.js';
import { settingLabel } from './config-form.js';
import { on, send } from './engine.js';
import { bytes, count, sentences } from './format.js';
import { compareSettings } from './wasm.js';
import { listRuns, storageProblem } from './run-store.js';
import { PALETTE } from './views/plot.js';

const $ = (id) => document.getElementById(id);
const ui = { list: $('runs'), usage: $('runs-usage'), differences: $('run-differences'), form: $('config') };
/** The colour of the run training now, as the loss chart draws it. */
const CURRENT_COLOUR = '#2563eb';
const compared = new Set();
let currentId = null;
let overlay = () => {};

const date = (ms) => dateTime(ms, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

/** A line about a run's model: layers, heads, width, parameters (a run saved before it kept its parameters: its own line). */
function about(run) {
  const m = run.settings?.model;
  if (run.params == null || !m) return run.summary;
  return t('library.about', { layers: m.n_layer, heads: m.n_head, channels: m.n_embd, params: count(run.params) });
}

function button(label, name, action) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.setAttribute('aria-label', t('library.action-run', { action: label, name }));
  b.addEventListener('click', action);
  return b;
}

function item(run, colour) {
  const li = document.createElement('li');
  li.classList.toggle('current', run.id === currentId);
  const compare = document.createElement('input');
  compare.type = 'checkbox';
  compare.checked = compared.has(run.id);
  compare.setAttribute('aria-label', t('library.compare-run', { name: run.name }));
  compare.addEventListener('change', () => {
    if (compare.checked) compared.add(run.id);
    else compared.delete(run.id);
    refreshRuns();
  });
  const name = document.createElement('span');
  name.className = 'name';
  if (colour) name.append(swatch(colour));
  name.append(run.name);
  const numbers = document.createElement('span');
  numbers.className = 'numbers';
  const step = count(run.step);
  numbers.textContent = run.bestVal == null ? t('library.step', { step }) : t('library.step-best', { step, best: decimal(run.bestVal, 3) });
  const detail = document.createElement('span');
  detail.className = 'detail';
  detail.textContent = `${run.corpus} · ${about(run)} · ${bytes(run.size)} · ${date(run.savedAt)}`;
  const actions = document.createElement('span');
  actions.className = 'actions';
  actions.append(
    button(t('library.open'), run.name, () => send({ type: 'open-saved', id: run.id })),
    button(t('library.rename'), run.name, () => {
      const next = prompt(t('library.new-name', { name: run.name }), run.name)?.trim();
      if (next && next !== run.name) send({ type: 'rename', id: run.id, name: next });
    }),
    button(t('library.download'), run.name, () => send({ type: 'download', id: run.id })),
    button(t('library.delete'), run.name, () => {
      if (confirm(t('library.confirm-delete', { name: run.name }))) send({ type: 'delete', id: run.id });
    }),
  );
  li.append(compare, name, numbers, detail, actions);
  return li;
}

/** Lists the saved runs again, with the storage they take, and redraws the compared ones. */
export async function refreshRuns() {
  let runs;
  try {
    runs = await listRuns();
  } catch (e) {
    ui.usage.textContent = t('library.unavailable', { reason: storageProblem(e) });
    return;
  }
  const chosen = runs.filter((r) => compared.has(r.id));
  const colours = new Map(chosen.map((r, i) => [r.id, PALETTE[(i + 2) % PALETTE.length]]));
  ui.list.replaceChildren(...runs.map((r) => item(r, colours.get(r.id))));
  overlay(chosen.map((r) => ({ name: r.name, colour: colours.get(r.id), history: r.history })));
  const current = runs.find((r) => r.id === currentId && !compared.has(r.id));
  const columns = [...(current ? [{ ...current, colour: CURRENT_COLOUR }] : []), ...chosen.map((r) => ({ ...r, colour: colours.get(r.id) }))];
  showDifferences(columns.filter((c) => c.settings));
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  const used = estimate ? [t('library.storage-used', { used: bytes(estimate.usage), quota: bytes(estimate.quota) })] : [];
  ui.usage.textContent = runs.length === 0 ? t('runs.runs-are-saved-here')
    : sentences([t('library.count', { n: runs.length }), ...used, await keepStorage()]);
}

/** A square of a run's colour on the chart. */
function swatch(colour) {
  const square = document.createElement('span');
  square.className = 'swatch';
  square.style.background = colour;
  return square;
}

/** A cell holding a run's colour swatch and name. */
function runCell(run) {
  const th = document.createElement('th');
  th.scope = 'col';
  th.append(swatch(run.colour), run.name);
  return th;
}

/** The settings that differ between the runs on the chart (the one training first), by the form's names. */
function showDifferences(columns) {
  ui.differences.hidden = columns.length < 2;
  if (ui.differences.hidden) return;
  const differences = compareSettings(columns.map((c) => c.settings));
  const head = document.createElement('tr');
  head.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: t('library.setting') }), ...columns.map(runCell));
  const rows = differences.map(({ field, values }) => {
    const tr = document.createElement('tr');
    const name = Object.assign(document.createElement('th'), { scope: 'row', textContent: settingLabel(ui.form, field) });
    tr.append(name, ...values.map((v) => Object.assign(document.createElement('td'), { textContent: v })));
    return tr;
  });
  if (rows.length === 0) {
    const same = Object.assign(document.createElement('td'), { colSpan: columns.length + 1, textContent: t('library.same-settings') });
    rows.push(Object.assign(document.createElement('tr'), {}));
    rows[0].append(same);
  }
  ui.differences.tHead.replaceChildren(head);
  ui.differences.tBodies[0].replaceChildren(...rows);
}

let persisted = null; // the browser's answer, asked once saved runs exist

/**
 * Asks the browser to keep this site's storage (Safari otherwise clears it after 7 days without
 * a visit, and any browser may under storage pressure), once; says what was granted.
 */
async function keepStorage() {
  if (!navigator.storage?.persist) return t('library.cannot-ask');
  persisted ??= await navigator.storage.persisted().then((yes) => yes || navigator.storage.persist()).catch(() => false);
  return persisted
    ? t('library.kept')
    : t('library.not-kept');
}

/** Lists the runs; `drawOverlays(runs)` draws the compared ones on the loss chart. */
export function initLibrary(drawOverlays) {
  overlay = drawOverlays;
  let timer = 0;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(refreshRuns, 300);
  };
  on('autosaved', ({ record }) => {
    currentId = record.id;
    soon();
  });
  on('runs-changed', soon);
  for (const context of ['restore', 'open-saved', 'rename', 'delete', 'download']) {
    on(`error:${context}`, ({ message }) => { ui.usage.textContent = t('library.failed', { reason: message }); });
  }
  refreshRuns();
}
