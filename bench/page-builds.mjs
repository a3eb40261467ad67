#!/usr/bin/env node
// Two whole pages side by side: each a static site assembled from one commit (its page and its
// engine), a preset trained from Train to Finished in a fresh Chromium page of each in turn, the
// order alternating by round; each round's wall time and the stats line's own figures (its
// elapsed training time and the views' records' share) and where the time went (to the first step
// shown, the steps, from the last step to Finished), the medians, and the median of the rounds' ratios. What bench/pairs.mjs cannot see: the workers, their messages, evaluations,
// records and autosave, as a learner's run meets them.
// Usage: node bench/page-builds.mjs <site A> <site B> [rounds] [preset] [workers]
//        (default 6 rounds of speedrun, with the workers the page chooses: Automatic)
// A site: `node scripts/site.mjs DIR` at a commit, after scripts/build.sh there.
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';
import { upperMedian } from './median.mjs';

const [a, b, rounds = '6', preset = 'speedrun', workers = null] = process.argv.slice(2);
if (!b) throw new Error('usage: node bench/page-builds.mjs <site A> <site B> [rounds] [preset] [workers]');
const servers = await Promise.all([a, b].map((root) => serve(0, '127.0.0.1', { root })));
const browser = await launchChromium();

/** One run of `preset` on the bundled Shakespeare in a fresh page of the site at `url`. */
async function run(url) {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 60000 });
    await page.getByLabel('Corpus').selectOption('shakespeare');
    await page.getByLabel('Preset').selectOption(preset);
    if (workers) await page.getByLabel('Workers').selectOption(workers);
    // Marks, in the page's clock: the first step shown, the last, and the run finished.
    await page.evaluate(() => {
      window.marks = {};
      const seen = () => {
        const step = Number(document.getElementById('stats').textContent.match(/step ([\d,]+) \/ ([\d,]+)/)?.slice(1).map((x) => x.replace(/,/g, '')).join(' ').split(' ')[0] ?? 0);
        const total = Number(document.getElementById('stats').textContent.match(/step [\d,]+ \/ ([\d,]+)/)?.[1].replace(/,/g, '') ?? -1);
        if (step >= 1 && !window.marks.first) window.marks.first = performance.now();
        if (step === total && !window.marks.last) window.marks.last = performance.now();
        if (/^Finished/.test(document.querySelector('[role=status]').textContent) && !window.marks.finished) window.marks.finished = performance.now();
      };
      new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const start = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await page.getByRole('status').getByText(/^Finished [\d,]+ steps/).waitFor({ timeout: 15 * 60000 });
    const marks = await page.evaluate(() => window.marks);
    const wall = (marks.finished - start) / 1000;
    const phases = { toFirst: (marks.first - start) / 1000, steps: (marks.last - marks.first) / 1000, toFinished: (marks.finished - marks.last) / 1000 };
    const stats = await page.locator('#stats').textContent();
    const elapsed = Number(stats.match(/elapsed ([\d.]+) s/)?.[1] ?? NaN);
    const records = Number(stats.match(/records ([\d.]+)%/)?.[1] ?? NaN);
    return { wall, ...phases, elapsed, records };
  } finally {
    await page.close();
  }
}

const results = { [a]: [], [b]: [] };
try {
  for (let round = 0; round < Number(rounds); round++) {
    for (const [site, { url }] of round % 2 ? [[b, servers[1]], [a, servers[0]]] : [[a, servers[0]], [b, servers[1]]]) {
      const r = await run(url);
      results[site].push(r);
      console.log(JSON.stringify({ round, site, ...r }));
    }
  }
} finally {
  await browser.close();
  servers.forEach(({ server }) => server.close());
}
const median = (site, key) => upperMedian(results[site].map((r) => r[key]));
for (const site of [a, b]) {
  console.log(`${site}: ${median(site, 'wall').toFixed(2)} s from Train to Finished (median of ${rounds}): ${median(site, 'toFirst').toFixed(2)} s to the first step, ${median(site, 'steps').toFixed(2)} s of steps, ${median(site, 'toFinished').toFixed(2)} s from the last to Finished; the stats line's elapsed ${median(site, 'elapsed').toFixed(1)} s, records ${median(site, 'records').toFixed(1)}%`);
}
const ratios = results[a].map((r, i) => results[b][i].wall / r.wall);
console.log(`${b} takes ${upperMedian(ratios).toFixed(3)}× ${a}'s time (median of the rounds' ratios: ${ratios.map((x) => x.toFixed(3)).join(', ')})`);
