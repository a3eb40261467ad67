#!/usr/bin/env node
// A big text in the page (Chromium, the tiny preset, character tokens): how long the upload takes
// to be counted, Train to the first step, and a reload to restore the paused run, and the memory
// (the wasm memory of every worker, as the stats line shows it, and the page's JS heap).
// Texts are tiny Shakespeare repeated to each size.
// Usage: node bench/big-text.mjs [--sizes 1,24,100] [--data ../shared/data/tinyshakespeare.txt]
//        (after scripts/build.sh). One JSON line per size.
import { parseArgs } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveSite } from '../tests/e2e/site.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';

const { values } = parseArgs({ options: {
  sizes: { type: 'string', default: '1,24,100' }, data: { type: 'string', default: '../shared/data/tinyshakespeare.txt' },
} });

const MB = 2 ** 20;
const seconds = (ms) => Number((ms / 1000).toFixed(2));
const mib = (bytes) => Number((bytes / MB).toFixed(1));

/** Tiny Shakespeare repeated to `mb` MiB, in a file in `folder`. */
function textOf(mb, folder) {
  const source = readFileSync(values.data);
  const bytes = Buffer.alloc(Math.round(mb * MB));
  for (let at = 0; at < bytes.length; at += source.length) source.copy(bytes, at, 0, Math.min(source.length, bytes.length - at));
  // Cut back to a line's end, so no character is split.
  const path = join(folder, `text-${mb}MB.txt`);
  writeFileSync(path, bytes.subarray(0, bytes.lastIndexOf(10) + 1));
  return path;
}

/** Waits for `test` (a function of the page) to hold, and returns ms since `t0` by the page's clock. */
async function after(page, t0, test, arg, timeout = 600000) {
  await page.waitForFunction(test, arg, { timeout, polling: 50 });
  return page.evaluate((t0) => performance.now() - t0, t0);
}

const now = (page) => page.evaluate(() => performance.now());
const heap = (page) => page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
const wasmMemory = async (page) => Number((await page.locator('#stats').textContent()).match(/memory ([\d.]+) MiB/)[1]);

async function measure(url, mb, path) {
  const browser = await launchChromium(['--enable-precise-memory-info']);
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 60000 });
    await page.getByLabel('Preset').selectOption('tiny');
    await page.getByLabel('Iterations', { exact: true }).fill('100000');
    let t0 = await now(page);
    await page.getByLabel('Upload .txt').setInputFiles(path);
    const chars = `${statSync(path).size.toLocaleString('en-US')} characters · vocabulary`; // ASCII: a byte a character
    const counted = await after(page, t0, (chars) => document.getElementById('text-summary').textContent.startsWith(chars)
      && !document.getElementById('train').disabled, chars);
    t0 = await now(page);
    await page.getByRole('button', { name: 'Train' }).click();
    const firstStep = await after(page, t0, () => /step [1-9]/.test(document.getElementById('stats').textContent));
    await page.waitForFunction(() => /step ([\d,]{3,})/.test(document.getElementById('stats').textContent), null, { timeout: 600000 });
    const training = { wasm_mib: await wasmMemory(page), js_heap_mib: mib(await heap(page)) };
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('status').getByText(/^Paused at step/).waitFor({ timeout: 600000 });
    // The autosave after a pause is done when the library lists the run with its size.
    await page.waitForTimeout(2000);
    t0 = Date.now();
    await page.reload();
    await page.getByRole('status').getByText(/^Restored run/).waitFor({ timeout: 600000 });
    const restored = Date.now() - t0;
    return { mb, count_s: seconds(counted), first_step_s: seconds(firstStep), restore_s: seconds(restored), ...training, restored_js_heap_mib: mib(await heap(page)) };
  } finally {
    await browser.close();
  }
}

const folder = mkdtempSync(join(tmpdir(), 'gpt-big-text-'));
const { server, url } = await serveSite();
try {
  for (const mb of values.sizes.split(',').map(Number)) {
    const path = textOf(mb, folder);
    console.log(JSON.stringify(await measure(url, mb, path).catch((e) => ({ mb, error: e.message.split('\n')[0] }))));
    rmSync(path);
  }
} finally {
  server.close();
  rmSync(folder, { recursive: true, force: true });
}
