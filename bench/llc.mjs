#!/usr/bin/env node
// What the learning coefficient costs. Natively (the CLI): one whole-model estimate at the
// calibrated defaults (4 chains × 200 draws) and every head's, on 1 thread and on 2, on the
// induction preset trained --steps steps, the median of --rounds each. In the page (Chromium): the
// same preset trained as many steps (its views' records, the live LLC's among them, as the page
// reports their share), then the LLC view's Estimate with one worker and with two, alternating:
// the chains' time as the view reports it (shared among the workers), the median of --rounds;
// every head's once on two workers; and each head at the run's live records (the heads view's
// curves), once, with their values.
// Usage: node bench/llc.mjs [--rounds 3] [--steps 1000] [--only native|page]
//        (after `cargo build --release -p gpt-cli` and scripts/build.sh)
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { median } from './median.mjs';
import { openPlayground, saveCheckpoint, trainRepeatAndOpenView } from '../tests/e2e/session.mjs';

const GPT = new URL('../target/release/gpt', import.meta.url).pathname;
const OUT = new URL('../target/llc-bench/', import.meta.url).pathname;
const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, steps: { type: 'string', default: '1000' }, only: { type: 'string' } },
});
const rounds = Number(values.rounds);
mkdirSync(OUT, { recursive: true });
const gpt = (...args) => execFileSync(GPT, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
const line = (times) => `${median(times).toFixed(2)} s (${times.map((t) => t.toFixed(2)).join(', ')})`;

if (values.only !== 'page') {
  const checkpoint = `${OUT}induction.safetensors`;
  gpt('train', '--task', 'repeat', '--iters', values.steps, '--json', '--out', checkpoint);
  const native = {};
  for (let r = 0; r < rounds; r++) {
    for (const part of ['whole', 'heads']) {
      for (const threads of ['1', '2']) {
        const out = JSON.parse(gpt('inspect', '--checkpoint', checkpoint, 'llc', '--part', part, '--threads', threads, '--json'));
        (native[`${part}, ${threads}`] ??= []).push(out.seconds);
      }
    }
  }
  for (const [key, times] of Object.entries(native)) console.log(`native, ${key} thread(s): ${line(times)}`);
}

if (values.only !== 'native') {
  const session = await openPlayground({ width: 1280, height: 1000 });
  try {
    const { page } = session;
    await trainRepeatAndOpenView(page, Number(values.steps), 'llc', 900000);
    console.log(`page (Chromium), training: ${(await page.locator('#stats').textContent()).match(/views' records [\d.]+%/)?.[0]}`);
    const estimate = async () => {
      const before = await page.locator('#llc-summary').textContent();
      await page.getByRole('button', { name: 'Estimate', exact: true }).click();
      await page.waitForFunction((old) => !document.getElementById('llc-estimate').disabled && document.getElementById('llc-summary').textContent !== old, before, { timeout: 600000 });
      const said = await page.locator('#llc-summary').textContent();
      const took = said.match(/The chains took ([\d.]+) s,? (?:on|shared by) (\d+) worker/);
      if (!took) throw new Error(said);
      return [Number(took[1]), Number(took[2]), said];
    };
    const page1 = { 1: [], 2: [] };
    for (let r = 0; r < rounds; r++) {
      for (const workers of [1, 2]) {
        await page.getByLabel('Workers').selectOption(String(workers));
        const [seconds, shared, said] = await estimate();
        if (shared !== workers) throw new Error(`${workers} workers: ${said}`);
        page1[workers].push(seconds);
        if (r === 0 && workers === 1) console.log(`page (Chromium): ${said.split('. MALA')[0]}`);
      }
    }
    for (const workers of [1, 2]) console.log(`page (Chromium), whole model, ${workers} worker(s): ${line(page1[workers])}`);
    await page.locator('#llc-part').selectOption('heads');
    const [heads] = await estimate();
    console.log(`page (Chromium), every head, 2 workers: ${heads.toFixed(2)} s`);
    // Each head at the live records, on the heads view: a record a job, on the run's own worker.
    await page.locator('#views > details[data-view="heads"]').evaluate((d) => { d.open = true; });
    const start = Date.now();
    await page.locator('#heads-score').selectOption('llc');
    await page.locator('#heads-llc-status').getByText(/^Each head's chains move only/).waitFor({ timeout: 600000 });
    const seconds = (Date.now() - start) / 1000;
    const records = (await saveCheckpoint(page)).history['llc-heads'];
    console.log(`page (Chromium), each head at ${records.length} live records: ${seconds.toFixed(2)} s`);
    for (const r of records) console.log(`  step ${r.step}: ${r.mean.map((m) => m?.toFixed(2)).join(', ')}`);
  } finally {
    await session.close();
  }
}
