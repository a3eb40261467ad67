#!/usr/bin/env node
// nanoGPT's CPU recipe end to end: nano-cpu on tiny Shakespeare for 2000 steps, evaluating every
// 250 over 200 batches, in the page (Chromium, K workers, the text uploaded as a user would), the
// PyTorch reference (1 thread) and the native CLI, one after another. Prints each one's wall
// time and final validation loss.
// Usage: node bench/recipe.mjs [--workers 2] [--data ../shared/data/tinyshakespeare.txt] [--only page,torch,native]
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';

const { values } = parseArgs({ options: {
  workers: { type: 'string', default: '2' }, data: { type: 'string', default: '../shared/data/tinyshakespeare.txt' },
  only: { type: 'string', default: 'page,torch,native' },
} });
const only = new Set(values.only.split(','));
const lines = (command, args) => execFileSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n').map((l) => JSON.parse(l));

async function page() {
  const { server, url } = await serve(0);
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    await tab.goto(url);
    await tab.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 30000 });
    await tab.getByLabel('Upload .txt').setInputFiles(values.data);
    await tab.getByText(/characters · vocabulary of 65/).waitFor();
    await tab.getByLabel('Preset').selectOption('nano-cpu');
    await tab.getByLabel('Workers').selectOption(values.workers);
    for (const [label, value] of [['Eval every', '250'], ['Eval batches', '200']]) {
      await tab.getByLabel(label, { exact: true }).fill(value);
      await tab.getByLabel(label, { exact: true }).dispatchEvent('change');
    }
    const start = Date.now();
    await tab.getByRole('button', { name: 'Train' }).click();
    await tab.getByRole('status').getByText(/^Finished 2,000 steps/).waitFor({ timeout: 30 * 60000 });
    const wall = (Date.now() - start) / 1000;
    const chart = await tab.locator('#loss-chart').getAttribute('aria-label');
    return { engine: `page, Chromium, ${values.workers} workers`, wall_s: wall, val_loss: Number(chart.match(/validation loss ([\d.]+)/)[1]) };
  } finally {
    await browser.close();
    server.close();
  }
}

const results = [];
if (only.has('page')) results.push(await page());
if (only.has('torch')) {
  const evals = lines('python3', ['bench/torch_reference.py', '--data', values.data, '--train']);
  results.push({ engine: 'PyTorch reference, 1 thread', wall_s: evals.at(-1).wall_s, val_loss: evals.at(-1).val_loss });
}
if (only.has('native')) {
  const evals = lines('target/release/gpt', ['train', '--data', values.data, '--preset', 'nano-cpu', '--eval-interval', '250', '--eval-iters', '200', '--json']);
  results.push({ engine: 'native CLI, every core', wall_s: evals.at(-1).wall_s, val_loss: evals.at(-1).val_loss });
}
console.log('| engine | wall time (s) | validation loss at 2000 |\n|---|---:|---:|');
for (const r of results) console.log(`| ${r.engine} | ${r.wall_s.toFixed(1)} | ${r.val_loss.toFixed(4)} |`);
