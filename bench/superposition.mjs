#!/usr/bin/env node
// What a learner waits for in the Superposition section, beside the same work natively: the toy
// model of 5 features in 2 dimensions to its pentagon (3,000 steps), the 20 × 20 phase diagrams
// (2 in 1, 3 in 2), and a TopK autoencoder (512 latents, k 4, 1,000 steps) on 256 features pushed
// apart in 64 dimensions, each firing with probability 0.016, in a fresh Chromium page (its
// workers: one per core; an autoencoder trains on one) and by the CLI (its threads: one per core),
// turn about in each round; the medians, the median of the rounds' page / native ratios, and the
// autoencoder's MCC in each. Times are the page's own status lines (to a tenth of a second) and the
// CLI's JSON.
// Usage: node bench/superposition.mjs [rounds]   (default 3; after scripts/build.sh and
//        cargo build --release -p gpt-cli)
import { execFileSync } from 'node:child_process';
import { launchChromium } from '../tests/e2e/browsers.mjs';
import { serveSite } from '../tests/e2e/site.mjs';
import { median } from './median.mjs';

const rounds = Number(process.argv[2] ?? 3);
const GPT = new URL('../target/release/gpt', import.meta.url).pathname;
const { server, url } = await serveSite();
const browser = await launchChromium();

const nativeRun = (...args) => JSON.parse(execFileSync(GPT, ['superposition', ...args, '--json'], { encoding: 'utf8' }).trim().split('\n').at(-1));
const native = (...args) => nativeRun(...args).seconds;
/** The autoencoder's job: 256 features, 64 dimensions, firing 0.016, 8 latents a dimension, k 4. */
const SAE = { features: '256', dims: '64', firing: '0.016', expansion: '8', k: '4', steps: '1000' };
const mccs = { page: [], native: [] };

function nativeSae() {
  const run = nativeRun('--synthetic', '--orthogonal', '--features', SAE.features, '--hidden', SAE.dims,
    '--sparsity', String(1 - Number(SAE.firing)), '--expansion', SAE.expansion, '--k', SAE.k, '--steps', SAE.steps, '--threads', '1');
  mccs.native.push(run.scores.truth.mcc);
  return run.seconds;
}

/** The autoencoder's job in page `p`: seconds, as its status line says. */
async function pageSae(p) {
  for (const [id, value] of Object.entries({ features: SAE.features, dims: SAE.dims, firing: SAE.firing, expansion: SAE.expansion, k: SAE.k, steps: SAE.steps })) {
    await p.locator(`#toy-sae-${id}`).fill(value);
  }
  await p.getByRole('button', { name: 'Train the autoencoder' }).click();
  const done = p.locator('#toy-sae-status').getByText(/^Step 1,000 of 1,000 in /);
  await done.waitFor({ timeout: 300000 });
  mccs.page.push(Number(await p.locator('#toy-sae-scores dd').first().textContent()));
  return shown(await done.textContent());
}
const shown = (text) => Number(text.match(/ in ([\d.]+) s/)[1]);

/** The three jobs in a fresh page: seconds each, as its status lines say. */
async function page() {
  const p = await browser.newPage();
  try {
    await p.goto(url);
    await p.getByRole('status').first().waitFor();
    await p.getByText('10. Superposition').click();
    await p.getByRole('button', { name: 'Train the toy model' }).click();
    const toy = p.locator('#toy-status').getByText(/^Step 3,000 of 3,000 in /);
    await toy.waitFor({ timeout: 120000 });
    const times = { pentagon: shown(await toy.textContent()) };
    for (const shape of ['2x1', '3x2']) {
      await p.locator('#toy-phase-shape').selectOption(shape);
      await p.getByRole('button', { name: 'Draw the diagram' }).click();
      const done = p.locator('#toy-phase-status').getByText(/^400 cells in /);
      await done.waitFor({ timeout: 300000 });
      times[shape] = shown(await done.textContent());
    }
    times.sae = await pageSae(p);
    return times;
  } finally {
    await p.close();
  }
}

const jobs = { pentagon: [], '2x1': [], '3x2': [], sae: [] };
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? ['page', 'native'] : ['native', 'page'];
  const measured = {};
  for (const side of order) {
    measured[side] = side === 'page' ? await page() : {
      pentagon: native(), '2x1': native('--phase', '2x1', '--side', '20'), '3x2': native('--phase', '3x2', '--side', '20'), sae: nativeSae(),
    };
  }
  for (const job of Object.keys(jobs)) jobs[job].push([measured.page[job], measured.native[job]]);
  console.log(`round ${r + 1}:`, Object.entries(jobs).map(([job, pairs]) => `${job} ${pairs.at(-1)[0].toFixed(1)} s page, ${pairs.at(-1)[1].toFixed(2)} s native`).join('; '));
}
for (const [job, pairs] of Object.entries(jobs)) {
  const ratio = median(pairs.map(([p, n]) => p / n));
  console.log(`${job}: page ${median(pairs.map((x) => x[0])).toFixed(1)} s, native ${median(pairs.map((x) => x[1])).toFixed(2)} s, page / native ${ratio.toFixed(2)}x (median of ${rounds} rounds)`);
}
console.log(`the autoencoder's MCC: page ${mccs.page.map((m) => m.toFixed(3)).join(', ')}; native ${mccs.native.map((m) => m.toFixed(3)).join(', ')}`);
await browser.close();
server.close();
