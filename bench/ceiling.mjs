#!/usr/bin/env node
// The most two workers can give on this machine: two independent runs, each on a page (a process)
// of its own, that train in turn alone and then together, on a schedule of windows both pages
// keep by the clock. A round's ceiling is their speed together over their speed alone: what a
// step shared by two workers could reach if its split cost nothing. The machine is shared and its
// speed drifts, so the windows interleave and the median of the rounds counts.
// Usage: node bench/ceiling.mjs [--preset speedrun] [--rounds 9] [--seconds 3] [--package pkg-relaxed]
//        (after scripts/build.sh)
import { parseArgs } from 'node:util';
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';
import { median } from './median.mjs';

const { values: opts } = parseArgs({
  options: {
    preset: { type: 'string', default: 'speedrun' },
    rounds: { type: 'string', default: '9' },
    seconds: { type: 'string', default: '3' },
    package: { type: 'string', default: 'pkg-relaxed' },
  },
});

/**
 * In a page: opens the run, warms up, then for each window [from, to, active] (epoch ms) trains
 * while active and idles otherwise. Returns ms a step in each window (null where idle).
 */
async function keepSchedule({ dir, preset, windows }) {
  const { openRun } = await import('/bench/engine-driver.js');
  const { train } = await openRun(dir, preset);
  train(5);
  const out = [];
  for (const [from, to, active] of windows) {
    while (Date.now() < from) await new Promise((r) => setTimeout(r, Math.min(5, from - Date.now())));
    if (!active) {
      out.push(null);
      continue;
    }
    let [steps, began, last] = [0, Date.now(), 0]; // began: later than from if the page was late
    while ((last = Date.now()) < to) {
      train(1);
      steps++;
    }
    out.push((last - began) / steps);
  }
  return out;
}

const { server, url } = await serve(0);
const browser = await launchChromium();
try {
  const contexts = await Promise.all([0, 1].map(() => browser.newContext()));
  const pages = await Promise.all(contexts.map((c) => c.newPage()));
  await Promise.all(pages.map((p) => p.goto(new URL('/web/favicon.svg', url).href)));
  // Each round: A alone, B alone, both (rotated by round), with a short gap between windows.
  const [span, gap] = [Number(opts.seconds) * 1000, 200];
  const kinds = ['a', 'b', 'both'];
  const plan = [];
  for (let r = 0; r < Number(opts.rounds); r++) for (let k = 0; k < 3; k++) plan.push(kinds[(k + r) % 3]);
  const start = Date.now() + 8000; // after both pages have loaded and warmed up
  const windows = (who) => plan.map((kind, i) => {
    const from = start + i * (span + gap);
    return [from, from + span, kind === 'both' || kind === who];
  });
  const [msA, msB] = await Promise.all(pages.map((p, i) => p.evaluate(keepSchedule, { dir: opts.package, preset: opts.preset, windows: windows(i ? 'b' : 'a') })));
  const ratios = [];
  for (let r = 0; r < Number(opts.rounds); r++) {
    const at = (kind) => plan.findIndex((k, i) => i >= 3 * r && k === kind);
    const [a, b, both] = [at('a'), at('b'), at('both')];
    // Speed together (steps a ms, both pages) over speed alone (the mean of the two).
    const ratio = (1 / msA[both] + 1 / msB[both]) / ((1 / msA[a] + 1 / msB[b]) / 2);
    ratios.push(ratio);
    console.log(`round ${r + 1}: alone ${msA[a].toFixed(1)} and ${msB[b].toFixed(1)} ms a step; together ${msA[both].toFixed(1)} and ${msB[both].toFixed(1)}: ${ratio.toFixed(2)}×`);
  }
  console.log(`${opts.preset}: two independent runs give ${median(ratios).toFixed(2)}× one (median of ${ratios.length} rounds)`);
} finally {
  await browser.close();
  server.close();
}
