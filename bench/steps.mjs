#!/usr/bin/env node
// Two builds of the engine side by side: whole wasm training steps in Chromium, each build on a
// fresh page in turn (the order alternating by round), and the median of the rounds' ratios.
// Usage: node bench/steps.mjs <package folder A> <package folder B> [rounds] [preset]
// e.g. a build of an earlier commit copied to target/pkg-before against pkg-relaxed.
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';
import { upperMedian } from './median.mjs';

const [a, b, rounds = '9', preset = 'nano-cpu'] = process.argv.slice(2);
if (!b) throw new Error('usage: node bench/steps.mjs <package folder A> <package folder B> [rounds] [preset]');
const { server, url } = await serve(0);
const browser = await launchChromium();
const ms = { [a]: [], [b]: [] };
try {
  for (let round = 0; round < Number(rounds); round++) {
    for (const dir of round % 2 ? [b, a] : [a, b]) {
      const page = await browser.newPage();
      await page.goto(new URL('/web/favicon.svg', url).href);
      ms[dir].push(await page.evaluate(async ({ dir, preset }) => {
        const { openRun } = await import('/bench/engine-driver.js');
        const { train } = await openRun(dir, preset);
        train(5); // warm-up: the engine's optimising compiler takes over
        const start = performance.now();
        train(20);
        return (performance.now() - start) / 20;
      }, { dir, preset }));
      await page.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
for (const dir of [a, b]) console.log(`${dir}: ${upperMedian(ms[dir]).toFixed(1)} ms a step (${ms[dir].map((x) => x.toFixed(1)).join(', ')})`);
const ratios = ms[a].map((x, i) => x / ms[b][i]);
console.log(`${b} is ${upperMedian(ratios).toFixed(3)}× as fast as ${a} (median of the rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
