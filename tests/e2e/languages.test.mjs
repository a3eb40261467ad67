// The page in each of its languages, as a first visitor meets it: opened in the language, the tiny
// preset trained, every view opened and a lesson's first steps walked; then, at desktop size and
// at 320 px, no catalog key shows raw, nothing reads as English (the page's or the engine's words), nothing is wider
// than the screen, no label is cut off, and axe-core finds nothing. Screenshots of each are kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchChromium } from './browsers.mjs';
import { serveSite } from './site.mjs';
import { axeViolations, SHOTS } from './session.mjs';
import { LANGUAGES } from '../../web/i18n.js';

const catalog = (code) => JSON.parse(readFileSync(new URL(`../../web/locales/${code}.json`, import.meta.url), 'utf8'));
const ENGLISH = catalog('en');
const STEPS = 30;

/** What a message looks like shown: a pattern, its arguments standing for any text (plurals and selects left out). */
const shownAs = (message) => new RegExp(`^${message.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '.+')}$`, 's');

/**
 * The English messages a page in `code` must not show: those its catalog words differently, with
 * letters enough to be words (not `{field} {value}`), and no plural or select to match loosely.
 */
function untranslated(code) {
  const own = catalog(code);
  return Object.entries(ENGLISH)
    .filter(([key, en]) => own[key] !== en && !/\{\w+,/.test(en) && /[A-Za-z]{3,}/.test(en.replace(/\{\w+\}/g, '')))
    .map(([key, en]) => ({ key, pattern: shownAs(en) }));
}

/** Every string the page shows or reads out: text nodes and the named attributes, not what a user typed or the model wrote. */
const shownStrings = (page) => page.evaluate(() => {
  const out = [];
  const skip = (el) => el.closest('textarea, input, pre, code, .token, .tokens, .features-contexts, .sample-text, [data-user-text]');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    if (text && !skip(n.parentElement) && n.parentElement.getClientRects().length) out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
    for (const name of ['aria-label', 'title', 'placeholder', 'alt']) if (el.getAttribute(name)) out.push(el.getAttribute(name));
  }
  return out;
});

/** English's little words: a string with two of them is an English sentence, whoever wrote it (the page or the engine). */
const ENGLISH_WORDS = /\b(the|and|of|to|is|are|with|from|this|that|for|each|its|by)\b/gi;
const readsEnglish = (s) => (s.match(ENGLISH_WORDS) ?? []).length >= 2;

/**
 * What is wrong with the words shown: a raw key, an English message the language words
 * differently, or any other string that reads as English (the engine's words, a view's).
 */
async function wordProblems(page, code) {
  const shown = await shownStrings(page);
  const keys = new Set(Object.keys(ENGLISH));
  const raw = shown.filter((s) => keys.has(s));
  if (code === 'en') return { raw, english: [] };
  const messages = untranslated(code).filter(({ pattern }) => shown.some((s) => pattern.test(s))).map(({ key }) => key);
  return { raw, english: [...messages, ...new Set(shown.filter(readsEnglish))] };
}

/** Labels, buttons and headings whose words are cut off by their own box. */
const cutOff = (page) => page.evaluate(() => [...document.querySelectorAll('label, button, summary, legend, h1, h2, h3, h4, th, option')]
  .filter((el) => el.getClientRects().length && !el.closest('.visually-hidden') && getComputedStyle(el).overflow !== 'visible' && el.scrollWidth > el.clientWidth + 1)
  .map((el) => el.id || el.textContent.trim().slice(0, 40)));

/** How far the page is wider than the screen: 0, or the excess and the elements reaching past the edge. */
const overflow = (page) => page.evaluate(() => {
  const excess = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  const edge = document.documentElement.clientWidth;
  const past = [...document.body.querySelectorAll('*')].filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > edge + 0.5);
  return excess === 0 ? 0 : { excess, past: past.slice(-6).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute('class') ?? ''}`) };
});

let server, url, browser;

before(async () => {
  ({ server, url } = await serveSite());
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  server?.close();
});

for (const { code } of LANGUAGES) {
  test(`${code}: a first visit trains, opens every view and a lesson, all in ${code}, fitting a desktop and a 320 px screen`, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await page.goto(`${url}#lang=${code}`);
      await page.waitForFunction(() => !document.getElementById('train').disabled, null, { timeout: 60000 });
      assert.equal(await page.evaluate(() => document.documentElement.lang), code);
      await page.locator('#preset').selectOption('tiny');
      await page.locator('[name=max_iters]').fill(String(STEPS));
      await page.locator('#train').click();
      await page.waitForFunction((n) => document.getElementById('progress').value === n && !document.getElementById('train').disabled, STEPS, { timeout: 120000 });
      // Every section and view opened, as a learner would open them.
      await page.evaluate(() => { for (const d of document.querySelectorAll('#inside, #walk, #features, #graph, [data-view]')) d.open = true; });
      await page.locator('#inside-status').getByText(new RegExp(`${STEPS}`)).waitFor();
      await page.locator('#walk-forward canvas').first().waitFor();
      await page.waitForTimeout(1500); // the views draw their answers
      assert.deepEqual(await wordProblems(page, code), { raw: [], english: [] }, 'after training, every view open');
      assert.equal(await overflow(page), 0, 'nothing wider than the desktop');
      assert.deepEqual(await axeViolations(page), [], 'desktop');
      await page.screenshot({ path: `${SHOTS}lang-${code}-desktop.png`, timeout: 60000 });

      // A lesson's first steps.
      await page.locator('#lessons-button').click();
      await page.locator('#lessons-list button').first().click();
      await page.locator('#lesson-title').filter({ hasText: /./ }).waitFor();
      const first = await page.locator('#lesson-where').textContent();
      await page.locator('#lesson-next').click();
      await page.waitForFunction((was) => document.getElementById('lesson-where').textContent !== was, first);
      assert.deepEqual(await wordProblems(page, code), { raw: [], english: [] }, 'in a lesson');

      await page.setViewportSize({ width: 320, height: 700 });
      await page.waitForTimeout(300);
      assert.equal(await overflow(page), 0, 'nothing wider than 320 px');
      assert.deepEqual(await cutOff(page), [], 'no label cut off at 320 px');
      assert.deepEqual(await axeViolations(page), [], '320 px');
      await page.screenshot({ path: `${SHOTS}lang-${code}-320.png`, timeout: 60000 }); // a loaded machine can take a while
      await page.locator('#lesson-leave').click();

      // A task's words, the engine's: what to watch for, what a setting does, an error beside its field.
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.locator('#corpus').selectOption('task:brackets');
      await page.locator('[name=length]').fill('32');
      await page.locator('[name=block_size]').fill('65');
      await page.locator('#task-outlook p').first().waitFor();
      assert.deepEqual(await wordProblems(page, code), { raw: [], english: [] }, 'a task');
      await page.locator('[name=train_fraction]').fill('2');
      await page.locator('[name=train_fraction][aria-invalid=true]').waitFor();
      assert.deepEqual(await wordProblems(page, code), { raw: [], english: [] }, 'an error beside its field');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
}

test('the header menu switches a training page: the run pauses, the page reloads in the language with it restored, and the choice is kept', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => !document.getElementById('train').disabled, null, { timeout: 60000 });
    await page.locator('#preset').selectOption('tiny');
    await page.locator('[name=max_iters]').fill('3000');
    await page.locator('#train').click();
    await page.waitForFunction(() => document.getElementById('progress').value > 20, null, { timeout: 60000 });
    await Promise.all([page.waitForEvent('load', { timeout: 30000 }), page.locator('#language').selectOption('es')]);
    await page.waitForFunction(() => document.documentElement.lang === 'es');
    const restored = page.locator('#status').getByText(/^Ejecución '.*' restaurada en el paso ([\d.]+)\./);
    await restored.waitFor({ timeout: 60000 });
    const step = Number((await restored.textContent()).match(/paso ([\d.]+)/)[1].replace(/\./g, ''));
    assert.ok(step > 20, `restored at step ${step}`);
    assert.match(page.url(), /[#&]lang=es/, 'the address carries the language');
    const later = await context.newPage(); // a later visit, with no language in its address
    await later.goto(url);
    await later.waitForFunction(() => document.documentElement.lang === 'es');
  } finally {
    await context.close();
  }
});
