// The page's words: one catalog per language (locales/<code>.json, English the fallback), the
// language in use, and messages in a subset of ICU MessageFormat ({name}, {n, number},
// {n, plural, =0 {..} one {..} other {..}} with #, {x, select, a {..} other {..}}) worded with
// Intl's rules for that language.

/** The page's languages: code (BCP 47), name in itself, and direction. Add one here. */
export const LANGUAGES = [
  { code: 'en', name: 'English', dir: 'ltr' },
  { code: 'es', name: 'Español', dir: 'ltr' },
  { code: 'pt-BR', name: 'Português (Brasil)', dir: 'ltr' },
  { code: 'zh-Hans', name: '中文（简体）', dir: 'ltr' },
  { code: 'ja', name: '日本語', dir: 'ltr' },
  { code: 'hi', name: 'हिन्दी', dir: 'ltr' },
  { code: 'ar', name: 'العربية', dir: 'rtl' },
];

/** Where the chosen language is kept between visits. */
const KEPT = 'gpt-playground-language';

let language = 'en';
let english = {};
let current = {};
// One formatter per language: building one per call showed in the page's profile.
let counts = new Intl.NumberFormat('en');
let decimals = new Map(); // digits → formatter
let numbers = new Intl.NumberFormat('en', { maximumFractionDigits: 20 }); // every digit the engine sends

/** The page's language for a BCP 47 tag (`es-MX` is `es`, `zh-CN` and `zh` are `zh-Hans`), or null. */
export function matchLanguage(tag) {
  let wanted;
  try {
    wanted = new Intl.Locale(tag).maximize();
  } catch {
    return null; // not a tag
  }
  const offered = LANGUAGES.map((l) => ({ code: l.code, locale: new Intl.Locale(l.code).maximize() }));
  const exact = offered.find((l) => l.code.toLowerCase() === tag.toLowerCase());
  const script = offered.find((l) => l.locale.language === wanted.language && l.locale.script === wanted.script);
  return (exact ?? script ?? offered.find((l) => l.locale.language === wanted.language))?.code ?? null;
}

/** The language to open in: a link's, else the one kept from before, else the browser's first offered, else English. */
export function chooseLanguage(linked, kept, preferred = []) {
  for (const tag of [linked, kept, ...preferred]) {
    const code = tag ? matchLanguage(tag) : null;
    if (code) return code;
  }
  return 'en';
}

/** The language a page address asks for (`#...&lang=es`), or null. */
export const linkedLanguage = (hash) => new URLSearchParams(hash.slice(1)).get('lang');

/** The language kept from an earlier visit, or null (storage may be refused). */
export function keptLanguage() {
  try {
    return localStorage.getItem(KEPT);
  } catch {
    return null;
  }
}

/** Keeps `code` for the next visits. */
export function keepLanguage(code) {
  try {
    localStorage.setItem(KEPT, code);
  } catch { /* storage refused: the choice lasts this visit */ }
}

/** The language in use, a code of LANGUAGES. */
export const languageInUse = () => language;

/** Sets the catalogs directly (tests, and after loading). */
export function setCatalogs(code, catalog, fallback = catalog) {
  language = code;
  current = catalog;
  english = fallback;
  counts = new Intl.NumberFormat(code);
  decimals = new Map();
  numbers = new Intl.NumberFormat(code, { maximumFractionDigits: 20 });
}

async function load(code) {
  const response = await fetch(new URL(`locales/${code}.json`, import.meta.url));
  if (!response.ok) throw new Error(`locales/${code}.json: HTTP ${response.status}`);
  return response.json();
}

/** Loads `code`'s catalog (English for a code the page lacks) and words with it from now on. */
async function loadLanguage(code) {
  const chosen = LANGUAGES.some((l) => l.code === code) ? code : 'en';
  const [base, catalog] = await Promise.all([load('en'), chosen === 'en' ? null : load(chosen)]);
  setCatalogs(chosen, catalog ?? base, base);
  return chosen;
}

/** Switches the page to `code`: loads its catalog, sets lang and dir, words the static page. */
export async function useLanguage(code) {
  const chosen = await loadLanguage(code);
  document.documentElement.lang = chosen;
  document.documentElement.dir = LANGUAGES.find((l) => l.code === chosen).dir;
  applyStatic(document);
}

/** A worker's script address carrying the language in use, so that the worker words as the page does. */
export function workerUrl(file, base) {
  const url = new URL(file, base);
  url.searchParams.set('lang', language);
  return url;
}

/** In a worker: loads the language its address carries (see workerUrl). */
export const useWorkerLanguage = () => loadLanguage(new URL(self.location.href).searchParams.get('lang') ?? 'en');

/**
 * Words the engine and the bundled corpora write in English (a preset's description, a task's
 * title, a setting's label and help, a corpus's title): in the language in use where its catalog
 * has them, under `@core`, keyed by the English (gettext's way: English is the source).
 */
export const coreText = (english) => current['@core']?.[english] ?? english;

/**
 * What the engine says (its words: a message's code and values), in the language in use: from the
 * catalog's `@words` section, keyed by code; its own English where the catalog has none (English's).
 */
export function say(words) {
  const message = current['@words']?.[words.code];
  if (message === undefined) return words.english;
  const values = Object.fromEntries(Object.entries(words.values).map(([name, v]) => [name, shown(v)]));
  return format(message, values, language);
}

/** An error in the language in use: the engine's words where it carries them, else its message. */
export const errorText = (error) => (error?.words ? say(error.words) : error?.message ?? String(error));

/** A value of the engine's words as the language shows it; a number stays one for plural to pick by. */
function shown(value) {
  if (typeof value === 'number') return new Shown(value, numbers.format(value));
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(shown).join(t('common.clause-separator'));
  if ('fixed' in value) return decimal(value.fixed, value.digits);
  if ('term' in value) return coreText(value.term);
  return say(value);
}

/**
 * A number as the language in use writes it (count, decimal): text wherever text goes, and still
 * its number where a message's plural picks a form by it.
 */
class Shown extends String {
  constructor(number, text, digits = 0) {
    super(text);
    this.number = number;
    this.digits = digits; // the decimals it shows: "1.00 nats" is a plural, as "1 nat" is not
  }
}

/** The number a message's value stands for: a Shown's own, else the value read as a number. */
const numberOf = (value) => (value instanceof Shown ? value.number : Number(value));

/** The message `key` in the language in use (English when its catalog lacks it), worded with `values`. */
export function t(key, values = {}) {
  const message = current[key] ?? english[key];
  if (message === undefined) return key;
  return format(message, values, language);
}

/** The message `key` as parts to append: strings, and each value that is a DOM node in its place. */
export function tParts(key, values = {}) {
  const nodes = [];
  const marked = Object.fromEntries(Object.entries(values).map(([name, v]) => {
    if (typeof v !== 'object' || v === null || !('nodeType' in v)) return [name, v];
    nodes.push(v);
    return [name, `\u0000${nodes.length - 1}\u0000`];
  }));
  return t(key, marked).split('\u0000').map((part, i) => (i % 2 ? nodes[Number(part)] : part)).filter((p) => p !== '');
}

/** A count in the language in use: 12,345 in English (a message's plural reads its number). */
export const count = (n) => new Shown(n, counts.format(n));

/** A date and time in the language in use (Intl.DateTimeFormat options). */
export const dateTime = (ms, options) => new Intl.DateTimeFormat(language, options).format(ms);

/**
 * `x` with `digits` decimals: as `toFixed` writes it in English, and in the language's own way
 * elsewhere (2,768 in Spanish); no grouping, as `toFixed` has none.
 */
export function decimal(x, digits) {
  if (language === 'en' || !Number.isFinite(x)) return new Shown(x, x.toFixed(digits), digits);
  if (!decimals.has(digits)) decimals.set(digits, new Intl.NumberFormat(language, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }));
  return new Shown(x, decimals.get(digits).format(x), digits);
}

/**
 * `x` in scientific notation with `digits` decimals, as `toExponential` writes it but in the
 * language's decimals and with minus signs (−2.52e−3), which a line never breaks at.
 */
export function scientific(x, digits) {
  if (!Number.isFinite(x) || x === 0) return decimal(x, digits);
  const [mantissa, exponent] = x.toExponential(digits).split('e');
  const text = `${decimal(Number(mantissa), digits).replace('-', '\u2212')}e${exponent.replace('-', '\u2212').replace('+', '')}`;
  // Isolated left to right on a right-to-left page, or its exponent would move before it (3−2.90e).
  return new Shown(x, LANGUAGES.find((l) => l.code === language)?.dir === 'rtl' ? `\u2066${text}\u2069` : text, digits);
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/**
 * A large count in the language's words up to trillions ("210 billion", "2100億"), as a power of ten
 * past them ("1.8 × 10¹⁹"); a message's plural still reads its number.
 */
export function roughly(n) {
  if (n < 1e15) return new Shown(n, new Intl.NumberFormat(language, { notation: 'compact', compactDisplay: 'long', maximumSignificantDigits: 2 }).format(n));
  const exponent = Math.floor(Math.log10(n));
  return new Shown(n, `${decimal(n / 10 ** exponent, 1)} × 10${[...String(exponent)].map((d) => SUPERSCRIPT[d]).join('')}`);
}

/** A list in the language in use: "a, b and c". */
export const list = (items) => new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }).format(items);

/** Words every element marked `data-i18n="key"` (its text) or `data-i18n-attrs="attr:key ..."`. */
function applyStatic(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) showRich(el, t(el.dataset.i18n));
  for (const el of root.querySelectorAll('[data-i18n-attrs]')) {
    for (const pair of el.dataset.i18nAttrs.trim().split(/\s+/)) {
      const [attr, key] = pair.split(':');
      el.setAttribute(attr, t(key));
    }
  }
}

/** The tags a message may hold, each shown as that element with its words as text. */
const RICH = /<(code|strong)>(.*?)<\/\1>/g;

/** Shows `message` in `el`: its text, with any <code> or <strong> in it as those elements. */
function showRich(el, message) {
  const parts = [];
  let last = 0;
  for (const m of message.matchAll(RICH)) {
    parts.push(message.slice(last, m.index));
    const inner = document.createElement(m[1]);
    inner.textContent = m[2];
    parts.push(inner);
    last = m.index + m[0].length;
  }
  parts.push(message.slice(last));
  el.replaceChildren(...parts.filter((p) => p !== ''));
}

/** `message` with its arguments filled from `values`, plural and select by `code`'s rules. */
export function format(message, values, code = language) {
  let out = '';
  let i = 0;
  while (i < message.length) {
    const open = message.indexOf('{', i);
    if (open < 0) break;
    out += message.slice(i, open);
    const close = matching(message, open);
    out += argument(message.slice(open + 1, close), values, code);
    i = close + 1;
  }
  return out + message.slice(i);
}

/** The index of the `}` closing the `{` at `open`. */
function matching(message, open) {
  let depth = 0;
  for (let j = open; j < message.length; j++) {
    if (message[j] === '{') depth++;
    else if (message[j] === '}' && --depth === 0) return j;
  }
  throw new Error(`unclosed { in message: ${message}`);
}

function argument(body, values, code) {
  const [name, kind] = body.split(',', 2).map((s) => s.trim());
  if (!(name in values)) throw new Error(`message needs a value for ${name}`);
  const value = values[name];
  if (kind === undefined) return String(value);
  if (kind === 'number') return new Intl.NumberFormat(code).format(numberOf(value));
  const options = cases(body.slice(body.indexOf(',', body.indexOf(',') + 1) + 1));
  if (kind === 'select') return format(options[value] ?? options.other, values, code);
  if (kind === 'plural') {
    const n = numberOf(value);
    const shownDigits = value instanceof Shown ? value.digits : 0;
    const rules = new Intl.PluralRules(code, { minimumFractionDigits: shownDigits, maximumFractionDigits: Math.max(shownDigits, 3) });
    const chosen = options[`=${n}`] ?? options[rules.select(n)] ?? options.other;
    const shown = value instanceof Shown ? String(value) : new Intl.NumberFormat(code).format(n);
    return format(chosen.replace(/#/g, shown), values, code);
  }
  throw new Error(`unknown argument kind ${kind}`);
}

/** `=0 {..} one {..} other {..}` as an object of case to message. */
function cases(text) {
  const out = {};
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    if (open < 0) break;
    const close = matching(text, open);
    out[text.slice(i, open).trim()] = text.slice(open + 1, close);
    i = close + 1;
  }
  return out;
}
