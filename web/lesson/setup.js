// A lesson's set-up (`@setup corpus=names preset=tiny max_iters=300`): each setting checked when
// the lesson is read against what the page's own controls offer, and applied as a learner sets
// them: the Corpus menu, the Preset menu, then each field. Nothing trains until the learner
// presses Train, and a set-up past every preset's size or length asks first.
import { errorText, say, t } from '../i18n.js';
import { catalog, describeModel } from '../wasm.js';
import { inFormWords, readConfig, settingsWith } from '../config-form.js';
import { chooseCorpus } from '../data-panel.js';
import { BUDGET, validate } from '../model-panel.js';
import { applyValues } from '../share-link.js';
import { count } from '../format.js';

const $ = (id) => document.getElementById(id);
/** Roughly what one core trains in a tab, in FLOP/s (nano-cpu: 3,200-4,500 tokens/s per worker, 6 × 0.8 M FLOP each). */
const FLOPS = 1.5e10;
/** How far past the largest preset (in parameters, and in arithmetic) a set-up goes before it asks. */
const MARGIN = 1.5;

const optionValues = (select) => [...select.options].map((o) => o.value);
const corpora = () => optionValues($('corpus')).filter((v) => v !== 'own'); // a lesson cannot bring text
const presetNamed = (name) => catalog().presets.find((p) => p.name === name);

/** `[checked values, problems]`: each setting a learner could set, checkboxes as 1 or 0, the rest named. */
export function checkSetup(values) {
  const ok = {};
  const problems = [];
  for (const [key, text] of Object.entries(values)) {
    const read = readSetting(key, text);
    if (read.problem) problems.push(t('lesson.setting-skipped', { key, text, problem: read.problem }));
    else ok[key] = read.value;
  }
  return [ok, problems];
}

function readSetting(key, text) {
  if (key === 'corpus') return corpora().includes(text) ? { value: text } : { problem: t('lesson.corpora', { names: corpora().join(', ') }) };
  if (key === 'preset') return presetNamed(text) ? { value: text } : { problem: t('lesson.presets', { names: catalog().presets.map((p) => p.name).join(', ') }) };
  const el = $('config').elements.namedItem(key);
  if (!el?.closest || 'local' in el.dataset) return { problem: t('lesson.no-setting') };
  if (el.type === 'checkbox') {
    const value = { 1: '1', true: '1', 0: '0', false: '0' }[text];
    return value ? { value } : { problem: t('lesson.checkbox') };
  }
  if (el.tagName === 'SELECT') return optionValues(el).includes(text) ? { value: text } : { problem: t('lesson.menu-offers', { values: optionValues(el).join(', ') }) };
  const empty = text === '' && 'optional' in el.dataset;
  return empty || (text.length <= 24 && Number.isFinite(Number(text))) ? { value: text } : { problem: t('lesson.takes-number') };
}

/**
 * A model's size and its run's arithmetic (FLOP), or what keeps the page from building it (a
 * setting past the page's budget, or one that is wrong). Sizes are weighed on a stand-in text (a
 * vocabulary of 100), so a set-up is judged the same before the text is counted, and whatever it is.
 */
function costOf(settings) {
  const { size, errors } = describeModel(settings, { chars: 1_000_000, vocab_size: 100 }, BUDGET);
  if (!size) return { problem: errors[0] ? say(errors[0].words) : t('lesson.invalid-settings') };
  const { batch_size: batch, max_iters: iters } = settings.train;
  return { params: size.params, flop: 6 * size.params * batch * settings.model.block_size * iters };
}

let largest = null;
/** The preset with the most parameters, and the most arithmetic a preset's run does. */
function largestPreset() {
  if (largest) return largest;
  const costs = catalog().presets.map((p) => ({ name: p.name, ...costOf(p.settings) })).filter((c) => !c.problem);
  const biggest = costs.reduce((a, b) => (b.params > a.params ? b : a));
  largest = { name: biggest.name, params: biggest.params, flop: Math.max(...costs.map((c) => c.flop)) };
  return largest;
}

/**
 * Why the set-up `values` should ask first ('' when it need not): a model or a run past every
 * preset's, or settings the page cannot build at all (past its budget, or wrong).
 */
export function whyAsk(values) {
  const form = $('config');
  const base = values.preset ? presetNamed(values.preset).settings : readConfig(form).config;
  let cost;
  try {
    cost = costOf(settingsWith(form, base, values));
  } catch (e) {
    cost = { problem: errorText(e) };
  }
  if (cost.problem) {
    return t('lesson.cannot-train', { problem: inFormWords(form, cost.problem) });
  }
  const most = largestPreset();
  if (cost.params <= MARGIN * most.params && cost.flop <= MARGIN * most.flop) return '';
  const minutes = Math.max(1, Math.round(cost.flop / FLOPS / 60));
  return t('lesson.large-model', { params: count(cost.params), preset: most.name, presetParams: count(most.params), minutes: count(minutes) });
}

/** Sets the page up as `values` say (checked by checkSetup), as a learner would. */
export async function applySetup(values) {
  const { corpus, preset, ...fields } = values;
  if (corpus && corpus !== $('corpus').value) await chooseCorpus(corpus);
  if (preset) {
    $('preset').value = preset;
    $('preset').dispatchEvent(new Event('change'));
  }
  applyValues($('config'), fields);
  validate();
}
