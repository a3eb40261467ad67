#!/usr/bin/env node
// The time a learner waits in the page for a sparse autoencoder to explain 90% of the variance of
// a model's activations: the page in Chromium, a checkpoint loaded with its text, section 8 opened,
// Train features pressed; the time from the press to the first measure at or past the goal, and
// the page's tokens/s. Run it beside `python bench/sae_quality.py`, which gives SAELens's tokens/s
// on the same machine's CPU. With several worker counts (`--workers 1,2`), each round runs them one
// after another, so their times are compared side by side; the medians and their ratio follow.
// Usage: node bench/features.mjs --checkpoint nano.ckpt --data ../shared/data/tinyshakespeare.txt
//        [--steps 300] [--k 32] [--expansion 8] [--goal 0.9] [--rounds 3] [--workers auto|1,2]
//        (after scripts/build.sh)
//        [--shot FILE --card N]: once trained, a screenshot of the section with feature N's card open
import { parseArgs } from 'node:util';
import { median } from './median.mjs';
import { sideBySide, withRun } from './page-rounds.mjs';

const { values } = parseArgs({
  options: {
    checkpoint: { type: 'string' }, data: { type: 'string' }, steps: { type: 'string', default: '300' },
    k: { type: 'string', default: '32' }, expansion: { type: 'string', default: '8' },
    goal: { type: 'string', default: '0.9' }, rounds: { type: 'string', default: '3' },
    shot: { type: 'string' }, card: { type: 'string' }, workers: { type: 'string', default: 'auto' },
  },
});
if (!values.checkpoint || !values.data) throw new Error('give --checkpoint and --data (the text it trained on)');

/** One round on a fresh page with `workers`: seconds to the goal, the step there, and tokens/s. */
function round(workers) {
  return withRun({ ...values, workers, section: '8. Features' }, async (page) => {
    await page.locator('#features-train:not([disabled])').waitFor({ timeout: 60000 });
    await page.getByLabel('Features per channel').fill(values.expansion);
    await page.getByLabel('Active per token (k)').fill(values.k);
    await page.getByLabel('Steps', { exact: true }).fill(values.steps);
    const goal = Number(values.goal);
    const start = Date.now();
    await page.getByRole('button', { name: 'Train features' }).click();
    for (;;) {
      const [measures, status, error] = await Promise.all(['#features-measures', '#features-status', '#features-error']
        .map((id) => page.locator(id).textContent()));
      if (error) throw new Error(error);
      const explained = Number(measures.match(/Variance explained([\d.]+)%/)?.[1] ?? NaN) / 100;
      const step = Number(status.match(/^Step (\d+) of/)?.[1] ?? 0);
      const speed = Number(status.match(/([\d,]+) tokens\/s/)?.[1].replace(/,/g, '') ?? NaN);
      if (explained >= goal && !values.shot) return { seconds: (Date.now() - start) / 1000, step, explained, speed };
      if (values.shot && /^Step (\d+) of \1:/.test(status)) return await screenshot(page, { seconds: NaN, step, explained, speed });
      if (/^Step (\d+) of \1:/.test(status)) return { seconds: Infinity, step, explained, speed };
      await page.waitForTimeout(200);
    }
  });
}

/** Feature `--card`'s card open, the section's screenshot in `--shot`. */
async function screenshot(page, result) {
  await page.locator('#features-list tbody tr').first().waitFor();
  await page.getByLabel('Open feature').fill(values.card ?? '0');
  await page.getByLabel('Open feature').dispatchEvent('change');
  await page.locator('#features-card-title').getByText(`Feature ${values.card ?? 0}`, { exact: true }).waitFor();
  await page.locator('#features').screenshot({ path: values.shot });
  return result;
}

const counts = values.workers.split(',');
const results = await sideBySide(counts, Number(values.rounds), round,
  (r) => `${(100 * r.explained).toFixed(1)}% explained at step ${r.step}, ${r.seconds.toFixed(1)} s after Train features, ${r.speed} tokens/s`);
const medians = counts.map((w) => ({ w, seconds: median(results[w].map((r) => r.seconds)), speed: median(results[w].map((r) => r.speed)) }));
for (const { w, seconds, speed } of medians) {
  console.log(`median, workers ${w}: ${seconds.toFixed(1)} s to ${100 * Number(values.goal)}% of the variance explained, ${speed} tokens/s`);
}
if (medians.length > 1) console.log(`time, workers ${counts[0]} over ${counts.at(-1)}: ${(medians[0].seconds / medians.at(-1).seconds).toFixed(2)}×`);
