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
