// Reads a language's words against its glossary (see glossary.test.mjs): each catalog section (the page's keys, the engine's `@core` English and
// its `@words` messages) and each bundled lesson is read against its language's glossary
// (web/locales/glossary/<code>.json). Where the English names a concept (glossary/en.json), the
// translation uses the glossary's term for it; and no text uses a rival the glossary lists.
import fs from 'node:fs';
import path from 'node:path';
import { LANGUAGES, setCatalogs } from '../../web/i18n.js';
import { parseLesson } from '../../web/lesson/parse.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (...parts) => JSON.parse(fs.readFileSync(path.join(ROOT, ...parts), 'utf8'));
const catalog = (code) => read('web/locales', `${code}.json`);
export const glossary = (code) => read('web/locales/glossary', `${code}.json`);
export const { '@about': about, ...CONCEPTS } = glossary('en');
const LESSON_IDS = read('assets/lessons/index.json');
setCatalogs('en', catalog('en'));

/**
 * What a reader reads of a message: its plain `{arguments}`, code, file names, quoted names and
 * settings, packages, tools' names and Arabic's marks left out (`train.bin`, "walk",
 * preset=tiny, circuit-tracer), the words of
 * select and plural cases kept.
 */
const prose = (text) => cases((text ?? '')
  .replace(/[\w.-]*\w\.(bin|pkl|pt|json|safetensors|py|md|zip|\{\w+\})[!-~]*|"[\w-]+"|@?[\w-]+\/[\w/.@-]+|(?<![\w-])-[\w-]+-en\b|\b\w+=[\w:.-]+|circuit-tracer|tiny ?Shakespeare|In-context learning and induction heads|@\w+ \w+[<>=]*[\d.]*/g, ' ')
  .replace(/<code>.*?<\/code>|`[^`]*`/g, ' ')).replace(MARKS, '');

/** Arabic's short vowels and other marks, which a reader may write or leave out: terms match without them. */
const MARKS = /[\u064B-\u065F\u0670\u0640]/g;

/** A message with each `{argument}` left out and each select or plural replaced by its cases' words. */
function cases(message) {
  let out = '';
  let depth = 0;
  let start = 0;
  for (let i = 0; i < message.length; i++) {
    if (message[i] === '{' && depth++ === 0) start = i;
    else if (message[i] === '}' && --depth === 0) {
      const body = message.slice(start + 1, i);
      const choice = body.match(/^\s*\w+\s*,\s*(select|plural)\s*,/);
      out += choice ? ` ${[...body.slice(choice[0].length).matchAll(/\{((?:[^{}]|\{[^{}]*\})*)\}/g)].map((m) => cases(m[1])).join(' ')} ` : ' ';
    } else if (depth === 0) out += message[i];
  }
  return out;
}

/** The engine's English messages by code (the catalogs word them under `@words`). */
export async function engineWords() {
  const engine = await import('../../pkg/gpt_playground.js');
  await engine.default({ module_or_path: fs.readFileSync(path.join(ROOT, 'pkg/gpt_playground_bg.wasm')) });
  return Object.fromEntries(engine.catalog().words.map((m) => [m.code, m.english]));
}

/** A lesson's text a reader reads, by part: its title and introduction, then each step (title, text, questions). */
function lessonParts(file) {
  const lesson = parseLesson(fs.readFileSync(file, 'utf8'));
  const text = (blocks) => blocks.flatMap((b) => (b.type === 'code' ? [] : b.type === 'list' ? b.items.flat() : b.spans))
    .filter((s) => s.type !== 'code').map((s) => s.text).join(' ');
  return [
    `${lesson.title} ${text(lesson.intro)}`,
    ...lesson.steps.map((s) => [s.title, text(s.blocks), ...s.directives.filter((d) => d.name === 'ask').map((d) => d.text)].join(' ')),
  ];
}

/** Every text of `code` beside its English: `{ where, english, text }`. */
function units(code, words) {
  const english = catalog('en');
  const { '@core': core = {}, '@words': said = {}, ...page } = catalog(code);
  const lessons = LESSON_IDS.flatMap((id) => {
    const theirs = lessonParts(path.join(ROOT, 'assets/lessons', code, `${id}.md`));
    return lessonParts(path.join(ROOT, 'assets/lessons', `${id}.md`)).map((en, i) => ({ where: `lesson ${id} part ${i}`, english: en, text: theirs[i] ?? '' }));
  });
  return [
    ...Object.entries(page).map(([key, text]) => ({ where: key, english: english[key], text })),
    ...Object.entries(said).map(([key, text]) => ({ where: `@words ${key}`, english: words[key], text })),
    ...Object.entries(core).map(([key, text]) => ({ where: `@core ${key.slice(0, 60)}`, english: key, text })),
    ...lessons,
  ];
}

/**
 * What breaks `code`'s glossary: a rival used, or a concept the English names worded without the
 * term. `edit` may change the texts first (a test puts a rival back).
 */
export function glossaryFaults(code, words, edit = (texts) => texts) {
  const entries = glossary(code);
  const faults = [];
  for (const unit of edit(units(code, words))) {
    const english = prose(unit.english);
    const text = prose(unit.text);
    for (const [concept, entry] of Object.entries(entries)) {
      if (concept.startsWith('@')) continue;
      for (const rival of entry.rivals ?? []) {
        const m = text.match(new RegExp(rival, 'iu'));
        if (m) faults.push(`${unit.where}: "${m[0]}" is a rival of ${concept}'s term "${entry.term}"`);
      }
      const named = CONCEPTS[concept] && new RegExp(CONCEPTS[concept], 'i').test(english);
      if (named && !(entry.except ?? []).includes(unit.where) && !new RegExp(entry.forms ?? entry.term, 'iu').test(text)) {
        faults.push(`${unit.where}: names ${concept} without "${entry.term}"`);
      }
    }
  }
  return faults;
}

