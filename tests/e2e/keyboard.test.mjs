// The page by keyboard alone, in Chromium: Tab to each control, arrows to choose, Enter or Space
// to press. A corpus and a preset are picked, training starts and pauses, a sample streams, a head
// enlarges, and the views inside the model open, without a click.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, untilStatus } from './session.mjs';

let session, page, errors;

before(async () => {
  session = await openPlayground();
  ({ page, errors } = session);
});
after(() => session?.close());

/** The focused element's name, as a screen reader reads it: its label, aria-label or own text. */
const focusedName = () => page.evaluate(() => {
  const el = document.activeElement;
  const label = el.labels?.[0];
  const own = label ? [...label.childNodes].filter((n) => n.nodeType === 3 || n.dataset?.i18n !== undefined).map((n) => n.textContent).join('') : '';
  return (own.trim() || el.getAttribute('aria-label') || el.textContent).trim();
});

/** Presses Tab until the control named `name` has the focus (from wherever the focus is). */
async function tabTo(name) {
  const seen = [];
  for (let i = 0; i < 250; i++) {
    await page.keyboard.press('Tab');
    const now = await focusedName();
    if (now === name || (name instanceof RegExp && name.test(now))) return;
    seen.push(now);
  }
  throw new Error(`Tab never reached ${name}; it passed ${[...new Set(seen)].join(' | ')}`);
}

/** Picks `value` in the focused select with the arrow keys, as a keyboard user does. */
async function arrowTo(value) {
  for (let i = 0; i < 30; i++) {
    if (await page.evaluate(() => document.activeElement.value) === value) return;
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`the arrows never reached ${value}`);
}

test('a keyboard alone picks a corpus and a preset, trains, pauses, samples and opens every view', async () => {
  await tabTo('Corpus');
  await page.keyboard.press('Home');
  await arrowTo('names');
  await page.getByText(/vocabulary of 28 distinct characters/).waitFor();
  await tabTo('Preset');
  await page.keyboard.press('Home');
  await arrowTo('tiny');
  await tabTo('Train');
  await page.keyboard.press('Enter');
  await untilStatus(page, /^Training/);
  await tabTo('Pause');
  await page.keyboard.press('Space');
  await untilStatus(page, /^Paused at step/);
  await tabTo('Generate');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('sample-output').textContent.length > 50);
  await tabTo('Layer 1, head 1: enlarge');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Layer 1, head 1' });
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await tabTo(/^6\. Inside the model/);
  await page.keyboard.press('Enter');
  await page.locator('#inside-status').getByText(/^At step \d+/).waitFor();
  assert.equal(await page.locator('#inside').getAttribute('open'), '');
  await session.shot('keyboard-inside-open');
  assert.deepEqual(errors, []);
});
