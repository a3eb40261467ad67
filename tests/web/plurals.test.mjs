// Counting in each language's grammar: every count of something (a number before its noun, "{steps}
// steps") is a plural in English, the page's and the engine's, and every catalog words each such
// count as a plural with each of its language's categories (Intl.PluralRules: Arabic's six, Hindi's
// two; a language with one form may leave the number plain).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LANGUAGES } from '../../web/i18n.js';
import { engineWords } from './glossary.mjs';

const WEB = path.resolve(import.meta.dirname, '../../web');
const catalog = (code) => JSON.parse(fs.readFileSync(path.join(WEB, 'locales', `${code}.json`), 'utf8'));

/** The nouns English counts with a number before them. */
const NOUNS = 'tokens|features|steps|channels|characters|edges|layers|parameters|problems|evaluations|positions|heads|nats|pairs|digits|bytes|terms|values|bins|frequencies|rows|minutes|bits|brackets|letters|columns|neurons|transcoders|prompts|numbers|tensors|workers|files|runs|merges|threads|items|queries|keys|seconds|words|chains|draws|nodes|links|samples|cells|points|lines|rounds';
/** A plain `{argument}` counting one of them: `{steps} steps`, `{tokens} held-out tokens` (not `{rate} tokens/s`). */
const COUNT = new RegExp(`\\{(\\w+)\\}(?: (?:[a-z]+-[a-z]+|distinct|active|dead|more|fewer|new|silent|training|saved|random))? (${NOUNS})\\b(?!/)`, 'g');

/** Each `{name, plural, ...}` of a message: its name and the cases it words. */
function plurals(message) {
  const out = [];
  for (let i = message.indexOf('{'); i >= 0; i = message.indexOf('{', i + 1)) {
    const m = message.slice(i).match(/^\{\s*(\w+)\s*,\s*plural\s*,/);
    if (!m) continue;
    let depth = 0;
    let j = i;
    for (; j < message.length; j++) {
      if (message[j] === '{') depth++;
      else if (message[j] === '}' && --depth === 0) break;
    }
    const body = message.slice(i + m[0].length, j);
    const cases = [];
    let level = 0;
    let label = '';
    for (const c of body) {
      if (c === '{' && level++ === 0) cases.push(label.trim());
      else if (c === '}') level--;
      else if (level === 0) label = c === ' ' && label.trim() ? label : label + c;
      if (c === '}' && level === 0) label = '';
    }
    out.push({ name: m[1], cases });
  }
  return out;
}

/** The counts a message words plainly, outside any plural. */
const plainCounts = (message) => [...message.matchAll(COUNT)].map((m) => `{${m[1]}} ${m[2]}`);

/** English's messages: the page's keys and the engine's templates (codes as `@words code`). */
async function englishMessages() {
  const words = await engineWords();
  return { ...catalog('en'), ...Object.fromEntries(Object.entries(words).map(([code, m]) => [`@words ${code}`, m])) };
}

/** A language's message for an English key. */
const theirs = (messages, key) => (key.startsWith('@words ') ? messages['@words']?.[key.slice(7)] : messages[key]);

test('English counts every noun with a plural, on the page and in the engine', async () => {
  const plain = Object.entries(await englishMessages()).flatMap(([key, m]) => plainCounts(m).map((c) => `${key}: ${c}`));
  assert.deepEqual(plain, []);
});

/** Where `messages` (a language's catalog) words a count English pluralises plainly, or without one of its categories. */
function pluralFaults(code, messages, english) {
  const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
  const faults = [];
  for (const [key, source] of Object.entries(english)) {
    const mine = theirs(messages, key);
    if (mine === undefined) continue; // the catalog test names what is missing
    for (const { name } of plurals(source)) {
      const found = plurals(mine).filter((p) => p.name === name);
      if (found.length === 0) {
        if (categories.length > 1 || !mine.includes(`{${name}}`)) faults.push(`${key}: {${name}} is not a plural`);
        continue;
      }
      for (const { cases } of found) {
        const lacking = categories.filter((c) => !cases.includes(c) && !(c === 'zero' && cases.includes('=0')));
        if (lacking.length) faults.push(`${key}: {${name}} lacks ${lacking.join(', ')}`);
      }
    }
  }
  return faults;
}

for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
  test(`${code} words each count as a plural with each of its categories`, async () => {
    assert.deepEqual(pluralFaults(code, catalog(code), await englishMessages()), []);
  });
}

test("a plural put back without one of the language's categories, or a count left plain, is found", async () => {
  const english = await englishMessages();
  const arabic = catalog('ar');
  arabic['library.about'] = arabic['library.about'].replace(/ few \{[^}]*\}/, '');
  const hindi = catalog('hi');
  hindi['checkpoints.files'] = '{n} फ़ाइलें';
  assert.deepEqual(pluralFaults('ar', arabic, english), ['library.about: {layers} lacks few']);
  assert.deepEqual(pluralFaults('hi', hindi, english), ['checkpoints.files: {n} is not a plural']);
});

test('a count worded plainly, or a plural missing a category, is found', () => {
  assert.deepEqual(plainCounts('Trained {steps} steps on {tokens} held-out tokens at {rate} tokens/s'), ['{steps} steps', '{tokens} tokens']);
  assert.deepEqual(plurals('{n, plural, zero {لا شيء} one {# خطوة} two {خطوتان} few {# خطوات} many {# خطوةً} other {# خطوة}} and {m, plural, =0 {none} other {# x}}'),
    [{ name: 'n', cases: ['zero', 'one', 'two', 'few', 'many', 'other'] }, { name: 'm', cases: ['=0', 'other'] }]);
});
