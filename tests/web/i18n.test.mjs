// The message format the catalogs are written in: arguments, numbers, plurals by each language's
// rules (Arabic has six forms), select, and English for a key a catalog lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseLanguage, count, decimal, errorText, format, matchLanguage, say, scientific, setCatalogs, t } from '../../web/i18n.js';

const STEPS = '{n, plural, =0 {no steps} one {# step} other {# steps}}';

test('arguments are filled in, and a missing one is an error', () => {
  assert.equal(format('Saved {name} at step {step}.', { name: 'run', step: 7 }, 'en'), 'Saved run at step 7.');
  assert.throws(() => format('Saved {name}.', {}, 'en'), /needs a value for name/);
});

test('plurals follow the language: an exact case first, then its plural rules', () => {
  assert.equal(format(STEPS, { n: 0 }, 'en'), 'no steps');
  assert.equal(format(STEPS, { n: 1 }, 'en'), '1 step');
  assert.equal(format(STEPS, { n: 1200 }, 'en'), '1,200 steps');
  const arabic = '{n, plural, zero {z} one {o} two {t} few {f} many {m} other {x}}';
  assert.deepEqual([0, 1, 2, 3, 11, 100].map((n) => format(arabic, { n }, 'ar')), ['z', 'o', 't', 'f', 'm', 'x']);
  assert.equal(format('{n, number}', { n: 1234.5 }, 'de'), '1.234,5');
});

test('select picks a case by value, else other; cases nest', () => {
  const m = '{kind, select, text {the text {name}} other {a task}}';
  assert.equal(format(m, { kind: 'text', name: 'names' }, 'en'), 'the text names');
  assert.equal(format(m, { kind: 'parity' }, 'en'), 'a task');
});

test("a key the language's catalog lacks is worded in English; an unknown key shows as itself", () => {
  setCatalogs('es', { hi: 'hola' }, { hi: 'hello', bye: 'goodbye {who}' });
  assert.equal(t('hi'), 'hola');
  assert.equal(t('bye', { who: 'all' }), 'goodbye all');
  assert.equal(t('nope'), 'nope');
});

test("the engine's words are said from the catalog by code, their values in the language's way", () => {
  const at = { code: 'walk.at', values: { position: 3, token: "'e'" }, english: "at position 3 ('e')" };
  const words = {
    code: 'walk.title', english: 'Row 1234.5 of 2 tables at position 3 (\'e\'), loss 2.3000, Modulus p',
    values: { row: 1234.5, n: 2, at, loss: { fixed: 2.3, digits: 4 }, label: { term: 'Modulus p' } },
  };
  const catalog = {
    '@words': { 'walk.title': 'Fila {row} de {n, plural, one {# tabla} other {# tablas}} {at}, pérdida {loss}, {label}', 'walk.at': 'en la posición {position} ({token})' },
    '@core': { 'Modulus p': 'Módulo p' },
  };
  setCatalogs('es', catalog, {});
  assert.equal(say(words), "Fila 1234,5 de 2 tablas en la posición 3 ('e'), pérdida 2,3000, Módulo p");
  assert.equal(say({ code: 'runs.unknown', values: {}, english: 'as the engine said' }), 'as the engine said');
  assert.equal(errorText(Object.assign(new Error('English'), { words: at })), "en la posición 3 ('e')");
  assert.equal(errorText(new Error('no words')), 'no words');
  setCatalogs('en', {}, {});
  assert.equal(say(words), words.english, "English is the engine's own");
});

test('the language to open in: a link\'s, else the kept one, else the browser\'s first offered, else English', () => {
  assert.deepEqual(['es-MX', 'pt', 'pt-PT', 'zh-CN', 'zh', 'ja-JP', 'hi-IN', 'ar-EG', 'EN-us'].map(matchLanguage),
    ['es', 'pt-BR', 'pt-BR', 'zh-Hans', 'zh-Hans', 'ja', 'hi', 'ar', 'en']);
  assert.equal(matchLanguage('fr-FR'), null);
  assert.equal(matchLanguage('not a tag!'), null);
  assert.equal(chooseLanguage(null, null, ['fr-FR', 'de', 'ja-JP', 'es']), 'ja');
  assert.equal(chooseLanguage(null, 'ar', ['ja-JP']), 'ar');
  assert.equal(chooseLanguage('es', 'ar', ['ja-JP']), 'es');
  assert.equal(chooseLanguage('xx', null, ['fr']), 'en');
});

test('a plural reads the number a count or a decimal shows: "1 nat", but "1.00 nats"', () => {
  setCatalogs('en', { n: '{x, plural, one {# nat} other {# nats}}' });
  assert.equal(t('n', { x: count(1) }), '1 nat');
  assert.equal(t('n', { x: decimal(1, 2) }), '1.00 nats');
  assert.equal(t('n', { x: count(1234) }), '1,234 nats');
  setCatalogs('es', { n: '{x, plural, one {# paso} many {# de pasos} other {# pasos}}' });
  assert.equal(t('n', { x: count(1) }), '1 paso');
  assert.equal(t('n', { x: count(1e6) }), '1.000.000 de pasos');
});

test('a number in scientific notation keeps its order on a right-to-left page, and a line never breaks it', () => {
  setCatalogs('en', {});
  assert.equal(String(scientific(0.00252, 2)), '2.52e\u22123');
  assert.equal(String(scientific(-3538e-7, 3)), '\u22123.538e\u22124', 'both signs are minus signs');
  setCatalogs('ar', {});
  assert.equal(String(scientific(0.00252, 2)), `\u2066${decimal(2.52, 2)}e\u22123\u2069`);
});
