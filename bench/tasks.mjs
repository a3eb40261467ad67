#!/usr/bin/env node
// How long each task preset takes, in the page in Chromium with its default workers, to show its
// phenomenon: an induction head (repeat), 99% of held-out problems right (reverse, sort, brackets,
// parity), 95% (addition), 90% (recall, once its induction circuit forms), and grokking's two
// moments (modular: 100% of training problems right, then 95% of held-out ones). Times run from
// the Train click; a run stops once its phenomenon is in. Each run also reports the share of its
// time the views' records took (the page's stats line).
// Usage: node bench/tasks.mjs [--tasks repeat,reverse,sort,addition,modular,brackets,parity,recall]
//        [--seeds 1337,1,2] [--workers auto|1|2]
//        (after scripts/build.sh). One JSON line per run, then the medians; each run's attention
//        grid goes to target/screenshots/attention-<task>-<seed>.png.
import { parseArgs } from 'node:util';
import { mkdirSync, readFileSync } from 'node:fs';
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';
import { upperMedian } from './median.mjs';
import { GOALS } from './task-goals.mjs';

/** Where each run's attention grid is saved, as it stands when the phenomenon is in. */
const SHOTS = new URL('../target/screenshots/', import.meta.url).pathname;

const MARKS = { induction: /induction head L\d+ H\d+ at step (\d+)/, memorised: /train accuracy 100% at step (\d+)/, generalised: /held-out accuracy 95% at step (\d+)/ };

/** What the page shows now: its clock, the step, the last held-out accuracy, the marks and the status. */
const READ = () => {
  const chart = document.getElementById('loss-chart').getAttribute('aria-label');
  const stats = document.getElementById('stats').textContent;
  const step = Number(stats.match(/step ([\d,]+)/)?.[1].replace(/,/g, '') ?? 0);
  const records = Number(stats.match(/views' records ([\d.]+)%/)?.[1] ?? NaN);
  const accuracy = chart.match(/and ([\d.]+)% held out/);
  return { t: performance.now(), step, records, chart, accuracy: accuracy ? Number(accuracy[1]) / 100 : null, status: document.getElementById('status').textContent };
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One run of `task`'s preset with `seed`: when each goal was first seen (step and seconds). */
async function run(url, task, seed, limitS, workerCount) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ acceptDownloads: true });
    await page.goto(url);
    await page.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 60000 });
    await page.getByLabel('Corpus').selectOption(`task:${task}`);
    await page.locator('#config').getByLabel('Seed').fill(String(seed));
    await page.getByLabel('Workers').selectOption(workerCount);
    const workers = await page.getByLabel('Workers').inputValue();
    const t0 = await page.evaluate(() => { document.getElementById('train').click(); return performance.now(); });
    const goal = GOALS[task];
    const seen = {};
    let now;
    for (;;) {
      now = await page.evaluate(READ);
      const s = (now.t - t0) / 1000;
      for (const mark of goal.marks ?? []) {
        const m = now.chart.match(MARKS[mark]);
        if (m && !seen[mark]) seen[mark] = { step: Number(m[1]), seconds: Number(s.toFixed(1)) };
      }
      if (goal.accuracy && now.accuracy >= goal.accuracy && !seen.accuracy) seen.accuracy = { step: now.step, seconds: Number(s.toFixed(1)) };
      const done = (!goal.accuracy || seen.accuracy) && (goal.marks ?? []).every((m) => seen[m]);
      if (done || /^Finished/.test(now.status) || s > limitS) break;
      await sleep(100);
    }
    await page.getByRole('button', { name: 'Pause' }).click().catch(() => {});
    await page.getByRole('status').getByText(/^(Paused|Finished)/).waitFor({ timeout: 60000 });
    // The heads on a held-out problem once the phenomenon is in (the attention refreshes on pause).
    await page.getByRole('button', { name: 'Held-out problem' }).click();
    const attention = page.locator('section', { has: page.locator('#attention-title') });
    await attention.scrollIntoViewIfNeeded();
    await sleep(1500);
    await attention.screenshot({ path: `${SHOTS}attention-${task}-${seed}.png` });
    // The share of the run the views' records took, as the page's stats line says it.
    const result = { task, seed, workers, ...seen, records_percent: now.records };
    if (task === 'repeat' && seen.induction) result.loss = await lossAround(page, seen.induction.step);
    return result;
  } finally {
    await browser.close();
  }
}

/** The held-out loss at the evaluations 100 steps before and after `step`, from a saved checkpoint. */
async function lossAround(page, step) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save checkpoint' }).click()]);
  const file = readFileSync(await download.path());
  const header = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString('utf8'));
  const evals = JSON.parse(header.__metadata__.history).evals;
  const at = (s) => evals.reduce((best, e) => (Math.abs(e.step - s) < Math.abs(best.step - s) ? e : best)).val_loss;
  return { before: Number(at(step - 100).toFixed(3)), after: Number(at(step + 100).toFixed(3)) };
}

const { values } = parseArgs({ options: {
  tasks: { type: 'string', default: Object.keys(GOALS).join(',') }, seeds: { type: 'string', default: '1337,1,2' },
  limit: { type: 'string', default: '900' }, workers: { type: 'string', default: 'auto' },
} });
mkdirSync(SHOTS, { recursive: true });
const { server, url } = await serve(0);
try {
  for (const task of values.tasks.split(',')) {
    const results = [];
    for (const seed of values.seeds.split(',').map(Number)) {
      const result = await run(url, task, seed, Number(values.limit), values.workers);
      console.log(JSON.stringify(result));
      results.push(result);
    }
    const keys = [...new Set(results.flatMap((r) => Object.keys(r).filter((k) => r[k]?.seconds !== undefined)))];
    const summary = Object.fromEntries(keys.map((k) => {
      const all = results.map((r) => r[k]);
      return [k, all.every(Boolean) ? { median_seconds: upperMedian(all.map((x) => x.seconds)), median_step: upperMedian(all.map((x) => x.step)) } : 'not reached in every run'];
    }));
    const records = upperMedian(results.map((r) => r.records_percent));
    console.log(JSON.stringify({ task, median_of: results.length, ...summary, records_percent: records }));
  }
} finally {
  server.close();
}
