// Lessons read as untrusted text (web/lesson/parse.js) and carried in links (web/lesson/link.js):
// what a lesson's Markdown becomes, which lines are named as problems, what hostile text turns
// into, and a link's round trip. The page's rendering of it is tested end to end (lessons.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MAX_LESSON, needsTraining, parseLesson, safeUrl, spans, WAITS } from '../../web/lesson/parse.js';
import { lessonFromHash, lessonLink } from '../../web/lesson/link.js';
import { TARGETS } from '../../web/lesson/targets.js';
import { LANGUAGES, linkedLanguage, setCatalogs } from '../../web/i18n.js';

// The lessons' messages in English, as the page words them with its English catalog.
setCatalogs('en', JSON.parse(readFileSync(new URL('../../web/locales/en.json', import.meta.url), 'utf8')));

const LESSONS = new URL('../../assets/lessons/', import.meta.url);
const BASE = 'http://localhost/gpt-playground/';

test('a lesson reads as a title, an introduction and steps, each directive with its line', () => {
  const lesson = parseLesson([
    '# Heads', 'Find the **induction** head.', '', '## Set up', '@setup corpus=task:repeat preset=induction max_iters="300"',
    'Press *Train*.', '- one', '- `two`', '', '## Wait', '@point train', '@open heads', '@wait induction within=90', '@ask Which head?',
    '```', '<b>code</b>', '```',
  ].join('\n'));
  assert.deepEqual(lesson.problems, []);
  assert.equal(lesson.title, 'Heads');
  assert.deepEqual(lesson.intro, [{ type: 'paragraph', spans: [{ type: 'text', text: 'Find the ' }, { type: 'strong', text: 'induction' }, { type: 'text', text: ' head.' }] }]);
  const [setUp, wait] = lesson.steps;
  assert.equal(setUp.title, 'Set up');
  assert.deepEqual(setUp.directives, [{ name: 'setup', values: { corpus: 'task:repeat', preset: 'induction', max_iters: '300' }, line: 5 }]);
  assert.deepEqual(setUp.blocks.map((b) => b.type), ['paragraph', 'list']);
  assert.deepEqual(setUp.blocks[1].items[1], [{ type: 'code', text: 'two' }]);
  assert.deepEqual(wait.directives.map((d) => [d.name, d.line]), [['point', 11], ['open', 12], ['wait', 13], ['ask', 14]]);
  assert.deepEqual(wait.directives[2], { name: 'wait', what: 'induction', op: null, value: null, within: 90, line: 13 });
  assert.deepEqual(wait.blocks, [{ type: 'code', text: '<b>code</b>' }]);
});

test('each line the page cannot follow is named, and the rest of the lesson still works', () => {
  const lesson = parseLesson([
    '# T', '@point train', '## One', '@explode now', '@wait step>=abc', '@wait step>=10 within=soon', '@wait accuracy>=90',
    '@wait teleport', '@setup', '@setup layers 4', '@point Not A Target', '@ask', '@wait open=walk', 'Still here.',
  ].join('\n'));
  assert.deepEqual(lesson.problems.map((p) => p.line), [2, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  assert.match(lesson.problems[0].message, /belongs to a step/);
  assert.match(lesson.problems[1].message, /^@explode is not a directive the page knows .*; the line is skipped$/);
  assert.match(lesson.problems[3].message, /within=SECONDS/);
  assert.match(lesson.problems[4].message, /fraction from 0 to 1/);
  assert.match(lesson.problems[7].message, /name=value/);
  assert.deepEqual(lesson.steps[0].directives.map((d) => d.name), ['wait']);
  assert.equal(lesson.steps[0].blocks[0].spans[0].text, 'Still here.');
});

test('an empty, stepless or oversized lesson says why', () => {
  assert.match(parseLesson('').problems[0].message, /empty/);
  assert.match(parseLesson('# Only a title\nand text').problems[0].message, /no steps/);
  const big = parseLesson(`# Big\n## Step\n${'x'.repeat(MAX_LESSON)}`);
  assert.equal(big.steps.length, 0);
  assert.match(big.problems[0].message, /up to 20,000/);
});

test('hostile text stays text: tags, event attributes, entities, and links to anything but http(s)', () => {
  const hostile = [
    '<script>alert(1)</script>', '<img src=x onerror="alert(1)">', '&lt;b&gt; &#106;avascript', '[click](javascript:alert(1))',
    '[data](data:text/html,<script>alert(1)</script>)', '[file](file:///etc/passwd)', '[rel](/relative)', '[ok](https://example.org/a?b=1)',
  ];
  const lesson = parseLesson(`# <b>T</b>\n## <i onmouseover=x>S</i>\n${hostile.join('\n\n')}`);
  assert.equal(lesson.title, '<b>T</b>', 'a title is text, shown as text');
  const paragraphs = lesson.steps[0].blocks.map((b) => b.spans);
  const links = paragraphs.flat().filter((s) => s.type === 'link');
  assert.deepEqual(links, [{ type: 'link', text: 'ok', href: 'https://example.org/a?b=1' }]);
  for (const [i, spansOf] of paragraphs.slice(0, 7).entries()) {
    assert.equal(spansOf.map((s) => s.text).join(''), hostile[i], 'shown exactly as written');
  }
  assert.ok(!safeUrl('javascript:alert(1)') && !safeUrl('data:,x') && !safeUrl('//evil.example') && safeUrl('http://example.org'));
});

test('inline spans: code, strong, emphasis and links, with text between', () => {
  assert.deepEqual(spans('a `b` **c** *d* [e](https://x.org) f'), [
    { type: 'text', text: 'a ' }, { type: 'code', text: 'b' }, { type: 'text', text: ' ' }, { type: 'strong', text: 'c' },
    { type: 'text', text: ' ' }, { type: 'em', text: 'd' }, { type: 'text', text: ' ' }, { type: 'link', text: 'e', href: 'https://x.org' },
    { type: 'text', text: ' f' },
  ]);
});

test('a lesson round-trips through a link, odd Unicode and all; a cut, corrupt or oversized link says why', async () => {
  const text = `# Ünïcode 🚀\n## Step\n${'Text with emoji 👩‍🏫 and RTL שלום.\n'.repeat(40)}@wait finished within=60\n`;
  const link = await lessonLink(text, BASE);
  assert.ok(link.startsWith(`${BASE}#lesson=`) && link.length < text.length, `${link.length} characters for ${text.length}`);
  assert.deepEqual(await lessonFromHash(new URL(link).hash), { text });
  assert.equal(await lessonFromHash('#preset=tiny'), null);
  const hash = new URL(link).hash;
  assert.match((await lessonFromHash(hash.slice(0, hash.length / 2))).error, /cut short/);
  assert.match((await lessonFromHash('#lesson=%%%')).error, /cannot be read/);
  assert.match((await lessonFromHash(`#lesson=${'A'.repeat(20_000)}`)).error, /up to 16,000/);
});

test('a lesson names its language before its steps; its link opens the page in it', async () => {
  const lesson = parseLesson('# Cabezas\n@lang es-MX\n## Paso\n@lang ja\n@wait finished\n');
  assert.equal(lesson.lang, 'es');
  assert.deepEqual(lesson.problems.map((p) => p.line), [4]);
  assert.match(lesson.problems[0].message, /before the first step/);
  assert.match(parseLesson('@lang tlh\n## Step\n').problems[0].message, /no language "tlh"; it has en, es, pt-BR, zh-Hans, ja, hi, ar/);
  const link = await lessonLink('# Lección\n@lang es\n## Paso\n', BASE, 'es');
  assert.equal(linkedLanguage(new URL(link).hash), 'es');
  assert.match((await lessonFromHash(new URL(link).hash)).text, /@lang es/);
});

test('every bundled lesson reads without a problem, waits for what it trains, and ends by saying where to go next', () => {
  const ids = JSON.parse(readFileSync(new URL('index.json', LESSONS), 'utf8'));
  assert.ok(ids.length >= 8, `${ids.length} lessons`);
  for (const id of ids) {
    const lesson = parseLesson(readFileSync(new URL(`${id}.md`, LESSONS), 'utf8'));
    assert.deepEqual(lesson.problems, [], id);
    assert.ok(lesson.intro.length > 0, `${id} says what it is about`);
    const waits = lesson.steps.flatMap((s) => s.directives).filter((d) => d.name === 'wait');
    const last = lesson.steps.at(-1);
    const links = last.blocks.flatMap((b) => b.spans ?? []).filter((s) => s.type === 'link').map((s) => s.href);
    if (waits.some(needsTraining)) {
      // A lesson on a GPT: its run trains in a time it says, and the run moves on to other tools.
      assert.ok(waits.some((w) => w.within), `${id} waits for its run, with a time`);
      assert.ok(last.directives.some((d) => d.name === 'point' && d.target === 'export'), `${id} ends at the export`);
      assert.ok(links.some((l) => /nanoGPT|TransformerLens/.test(l)), `${id} says where to go next`);
    } else {
      // A lesson on toy models (superposition): it waits for them, and points to the field's own tools.
      assert.ok(waits.some((w) => w.what === 'toy' || w.what === 'autoencoder'), `${id} waits for its toy models`);
      assert.ok(links.some((l) => /SAELens|transformer-circuits/.test(l)), `${id} says where to go next`);
    }
  }
});

/** What a lesson asks of the page, whatever its language: each step's directives, a question's words left out. */
const asks = (lesson) => lesson.steps.map((step) => step.directives.map(({ line, text, ...d }) => (d.name === 'ask' ? { name: 'ask' } : d)));

test('every bundled lesson is in every language, reads without a problem and asks the same of the page as in English', () => {
  const ids = JSON.parse(readFileSync(new URL('index.json', LESSONS), 'utf8'));
  for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
    for (const id of ids) {
      const english = parseLesson(readFileSync(new URL(`${id}.md`, LESSONS), 'utf8'));
      const lesson = parseLesson(readFileSync(new URL(`${code}/${id}.md`, LESSONS), 'utf8'));
      assert.deepEqual(lesson.problems, [], `${code}/${id}`);
      assert.equal(lesson.lang, code, `${code}/${id} names its language`);
      assert.deepEqual(asks(lesson), asks(english), `${code}/${id} asks what ${id} asks`);
    }
  }
});

test('the guide to writing a lesson (docs/lessons.md) names every part of the page and every wait', () => {
  const page = readFileSync(new URL('../../docs/lessons.md', import.meta.url), 'utf8');
  const guide = page.slice(page.indexOf('## Writing a lesson'));
  const words = new Set(guide.split(/[\s`(),.:=<>]+/));
  assert.deepEqual(TARGETS.filter((t) => !words.has(t)), [], 'parts the guide does not list');
  assert.deepEqual(Object.keys(WAITS).filter((w) => !words.has(w)), [], 'waits the guide does not list');
});
