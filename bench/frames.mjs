#!/usr/bin/env node
// How long the page's frames take while it trains (Chromium, automatic workers), with nothing
// open, with every view inside the model open, and with the walk through the model open: the
// tiny preset on names for 300 steps, each setup on a fresh page in turn (the order alternating
// by round). Reports each setup's longest frame and 99th percentile, medians of the rounds. No
// test times frames (a loaded machine's frames are its own); this is where their length is read.
// Usage: node bench/frames.mjs [rounds]   (after scripts/build.sh)
import { openPlayground, recordFrames, untilStatus } from '../tests/e2e/session.mjs';
import { upperMedian } from './median.mjs';

const rounds = Number(process.argv[2] ?? 3);

/** The sections each setup opens before training, by the text of their summaries. */
const SETUPS = { nothing: [], 'inside the model': ['6. Inside the model'], 'the walk': ['7. Walk through the model'] };

/** One setup's frames over a 300-step run: its longest gap and 99th percentile, in ms. */
async function measure(open) {
  const session = await openPlayground({ width: 1280, height: 1000 });
  const { page } = session;
  try {
    await page.getByRole('button', { name: 'Not now' }).click();
    await page.getByLabel('Corpus').selectOption('names');
    await page.getByLabel('Preset').selectOption('tiny');
    await page.getByLabel('Iterations', { exact: true }).fill('300');
    for (const section of open) await page.getByText(section).click();
    const frames = await recordFrames(page);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await untilStatus(page, /^Finished 300 steps/, 300000);
    const gaps = (await frames()).sort((a, b) => a - b);
    return { longest: gaps.at(-1), p99: gaps[Math.floor(gaps.length * 0.99)] };
  } finally {
    await session.close();
  }
}

const results = Object.fromEntries(Object.keys(SETUPS).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  const order = Object.keys(SETUPS);
  for (const name of round % 2 ? order.reverse() : order) {
    const r = await measure(SETUPS[name]);
    console.log(JSON.stringify({ round, setup: name, ...r }));
    results[name].push(r);
  }
}
console.log(`\n| open while training | longest frame (ms) | 99th percentile (ms) |\n|---|---:|---:|`);
for (const [name, rs] of Object.entries(results)) {
  console.log(`| ${name} | ${upperMedian(rs.map((r) => r.longest)).toFixed(0)} | ${upperMedian(rs.map((r) => r.p99)).toFixed(0)} |`);
}
