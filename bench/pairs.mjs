#!/usr/bin/env node
// Two builds of the engine in one Chromium page, timed in adjacent pairs (two training steps, or
// one evaluation, of each; the order swapping every pair), and the median of the pairs' ratios.
// Finer than bench/steps.mjs when the machine's speed drifts from minute to minute: each pair
// is measured within a second.
// Usage: node bench/pairs.mjs <package folder A> <package folder B> [pairs] [train|eval] [preset]   (nano-cpu by default)
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';

const [a, b, pairs = '60', what = 'train', preset = 'nano-cpu'] = process.argv.slice(2);
if (!b || !['train', 'eval'].includes(what)) throw new Error('usage: node bench/pairs.mjs <package folder A> <package folder B> [pairs] [train|eval] [preset]');
const { server, url } = await serve(0);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(new URL('/web/favicon.svg', url).href);
  const { ta, tb } = await page.evaluate(async ({ a, b, pairs, what, preset }) => {
    const { openRun } = await import('/bench/engine-driver.js');
    const open = async (dir) => {
      const { train, evaluate } = await openRun(dir, preset, 4); // an evaluation: 8 batches
      train(3);
      return what === 'train' ? () => train(2) : evaluate;
    };
    const [fa, fb] = [await open(a), await open(b)];
    const time = (f) => { const start = performance.now(); f(); return performance.now() - start; };
    for (let i = 0; i < 3; i++) [fa, fb].forEach(time); // warm-up: the optimising compiler takes over
    const [ta, tb] = [[], []];
    for (let i = 0; i < pairs; i++) {
      if (i % 2) { tb.push(time(fb)); ta.push(time(fa)); } else { ta.push(time(fa)); tb.push(time(fb)); }
    }
    return { ta, tb };
  }, { a, b, pairs: Number(pairs), what, preset });
  const sorted = (xs) => [...xs].sort((x, y) => x - y);
  const ratios = sorted(ta.map((x, i) => x / tb[i]));
  const at = (q) => ratios[Math.floor(q * (ratios.length - 1))].toFixed(3);
  console.log(`${what}: ${a} ${sorted(ta)[ta.length >> 1].toFixed(1)} ms, ${b} ${sorted(tb)[tb.length >> 1].toFixed(1)} ms`);
  console.log(`${b} is ${at(0.5)}× as fast as ${a} (median of ${ratios.length} pairs; quartiles ${at(0.25)}–${at(0.75)})`);
} finally {
  await browser.close();
  server.close();
}
