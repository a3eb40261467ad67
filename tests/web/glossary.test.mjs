// One voice in every language: each catalog section (the page's keys, the engine's `@core` English and
// its `@words` messages) and each bundled lesson is read against its language's glossary
// (web/locales/glossary/<code>.json). Where the English names a concept (glossary/en.json), the
// translation uses the glossary's term for it; and no text uses a rival the glossary lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LANGUAGES } from '../../web/i18n.js';
import { about, CONCEPTS, engineWords, glossary, glossaryFaults } from './glossary.mjs';

test('every language has a glossary of the concepts English names, each with its term', () => {
  assert.ok(about);
  for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
    const entries = glossary(code);
    assert.deepEqual(Object.keys(CONCEPTS).filter((c) => !entries[c]?.term), [], `${code}: concepts without a term`);
  }
});

for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
  test(`the ${code} catalog and lessons use the ${code} glossary's terms and none of their rivals`, async () => {
    assert.deepEqual(glossaryFaults(code, await engineWords()), []);
  });
}

test('a rival put back, or a term left out, is found', async () => {
  const words = await engineWords();
  const put = (where, from, to) => (texts) => texts.map((u) => (u.where === where ? { ...u, text: u.text.replace(from, to) } : u));
  // The review's own finds: Japanese attention as 注意, Chinese circuit as 电路, Hindi key as की.
  assert.deepEqual(glossaryFaults('ja', words, put('@words tasks.sort_watch', 'アテンション', '注意')), [
    '@words tasks.sort_watch: "注意" is a rival of attention\'s term "アテンション"',
    '@words tasks.sort_watch: names attention without "アテンション"',
  ]);
  assert.deepEqual(glossaryFaults('zh-Hans', words, put('@words runs.no_circuit_view', '回路', '电路')), [
    '@words runs.no_circuit_view: "电路" is a rival of circuit\'s term "回路"',
    '@words runs.no_circuit_view: names circuit without "回路"',
  ]);
  assert.deepEqual(glossaryFaults('hi', words, put('why.key-side', 'कुंजी', 'की')), ['why.key-side: names key without "कुंजी"']);
});
