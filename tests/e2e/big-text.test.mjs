// A big text, in Chromium: counted away from the page with progress, held aside with its start
// in the box, trained on, and restored after a reload; a text too big for a tab is refused with
// a message before anything is read. (How long each takes is bench/big-text.mjs's, not a test's.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, ftruncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPlayground, saveCheckpoint, untilStatus } from './session.mjs';

let session, page, errors, folder;

before(async () => {
  session = await openPlayground();
  ({ page, errors } = session);
  folder = mkdtempSync(join(tmpdir(), 'gpt-big-'));
});
after(async () => {
  await session?.close();
  rmSync(folder, { recursive: true, force: true });
});

const summary = () => page.locator('#text-summary').textContent();

test('a 3 MB text is counted, held aside with its start in the box, trained on and restored', async () => {
  // Names repeated to 3 MB, with a last line the box cannot show: the model must still see it.
  const names = readFileSync(new URL('../../assets/names.txt', import.meta.url), 'utf8');
  const text = `${names.repeat(Math.ceil(3e6 / names.length))}zß€😀\n`;
  const path = join(folder, 'big.txt');
  writeFileSync(path, text);
  await page.getByLabel('Upload .txt').setInputFiles(path);
  const chars = [...text].length;
  const vocab = new Set(text).size;
  await page.locator('#text-summary').getByText(`${chars.toLocaleString('en-US')} characters · vocabulary of ${vocab} distinct characters`).waitFor();
  assert.match(await summary(), /the box shows its first 100,000 characters \(too long to edit here\); the whole text trains/);
  const box = page.getByLabel('Training text');
  assert.equal((await box.inputValue()).length, 100000);
  assert.equal(await box.getAttribute('readonly'), '');
  await page.getByLabel('Preset').selectOption('tiny');
  await page.getByLabel('Iterations', { exact: true }).fill('40');
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 40 steps/, 60000);
  // The model's vocabulary has the last line's characters, which only the whole text has.
  const tokens = JSON.parse((await saveCheckpoint(page)).metadata.vocab);
  assert.equal(tokens.length, vocab);
  assert.ok(['ß', '€', '😀'].every((c) => tokens.includes(c)), tokens.join(''));
  await session.shot('big-text-1-trained');
  await page.reload();
  await untilStatus(page, /^Restored run '.*' at step 40\./);
  await page.locator('#text-summary').getByText(`${chars.toLocaleString('en-US')} characters`).waitFor();
  assert.equal((await box.inputValue()).length, 100000);
  assert.deepEqual(errors, []);
});

test('a text too big for a tab is refused before it is read, and the text stays', async () => {
  const before = await summary();
  const path = join(folder, 'huge.txt');
  const file = openSync(path, 'w');
  ftruncateSync(file, 129 * 2 ** 20); // sparse: nothing is written
  closeSync(file);
  await page.getByLabel('Upload .txt').setInputFiles(path);
  await page.getByText(/huge\.txt is 129 MiB; the playground takes texts up to 128 MiB, as a tab runs short of memory beyond that/).waitFor();
  assert.equal(await summary(), before);
  assert.deepEqual(errors, []);
});

test('a count that ends after the text changed is not taken for the new text', async () => {
  const tab = await session.newPage();
  // Holds the counting worker's orders until the test lets them go, and counts its answers.
  await tab.addInitScript(() => {
    const Real = window.Worker;
    Object.assign(window, { holdCounts: false, heldCounts: [], countAnswers: 0 });
    window.Worker = class extends Real {
      constructor(url, options) {
        super(url, options);
        this.counts = String(url).includes('count-worker');
        if (this.counts) this.addEventListener('message', ({ data }) => { if (data.stats) window.countAnswers++; });
      }
      postMessage(...order) {
        if (this.counts && window.holdCounts) window.heldCounts.push(() => super.postMessage(...order));
        else super.postMessage(...order);
      }
    };
  });
  const tabErrors = [];
  tab.on('pageerror', (e) => tabErrors.push(e.message));
  await tab.goto(session.url);
  await untilStatus(tab, /^Ready/);
  await tab.locator('#text-summary').getByText(/vocabulary of 28 distinct characters/).waitFor();
  // The short stories arrive and their count starts, but is held.
  await tab.evaluate(() => { window.holdCounts = true; });
  await tab.getByLabel('Corpus').selectOption('stories');
  await tab.waitForFunction(() => window.heldCounts.length === 1);
  // Names is chosen while the stories are counted, and its text is held on the way.
  let sendNames;
  const namesSent = new Promise((resolve) => { sendNames = resolve; });
  await tab.route('**/assets/names.txt', async (route) => { await namesSent; await route.continue(); });
  await tab.getByLabel('Corpus').selectOption('names');
  assert.equal(await tab.getByLabel('Training text').inputValue(), 'Loading…');
  const answers = await tab.evaluate(() => window.countAnswers);
  await tab.evaluate(() => { window.holdCounts = false; window.heldCounts.splice(0).forEach((send) => send()); });
  await tab.waitForFunction((n) => window.countAnswers > n, answers);
  // The stories' count came back while the box says Loading…: it is not the text's.
  assert.equal(await tab.locator('#text-summary').textContent(), 'Loading First names…');
  assert.equal(await tab.getByRole('button', { name: 'Train' }).isDisabled(), true);
  sendNames();
  await tab.locator('#text-summary').getByText(/vocabulary of 28 distinct characters/).waitFor();
  assert.equal(await tab.getByRole('button', { name: 'Train' }).isDisabled(), false);
  assert.deepEqual(tabErrors, []);
  await tab.close();
});
