#!/usr/bin/env node
// Where a wasm training step (or evaluation) spends its time in Chromium: trains a preset on the
// page's thread under the DevTools CPU profiler and prints the functions with the most self time.
// Usage: node bench/profile.mjs [preset] [steps] [package folder, pkg by default] [train|eval|llc]
// (eval: that many evaluations of 20 batches of each split instead; llc: after 300 steps, that
// many whole-model LLC estimates at the view's defaults, 4 chains × 200 draws, on one thread)
// (after wasm-pack build --target web --profiling; see docs/benchmarks.md for a relaxed-SIMD build
// with function names)
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';

const [preset = 'nano-cpu', steps = '40', pkg = 'pkg', what = 'train'] = process.argv.slice(2);
if (!['train', 'eval', 'llc'].includes(what)) throw new Error('usage: node bench/profile.mjs [preset] [steps] [package folder] [train|eval|llc]');
const { server, url } = await serve(0);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(new URL('/web/favicon.svg', url).href);
  const client = await page.context().newCDPSession(page);
  await page.evaluate(async ({ preset, pkg, what }) => {
    const { openRun } = await import('/bench/engine-driver.js');
    const { train, evaluate, job } = await openRun(pkg, preset, 20);
    train(what === 'llc' ? 300 : 3);
    const estimate = () => job({ llc: { estimate: true } });
    globalThis.work = { train: () => train(1), eval: evaluate, llc: estimate }[what];
    globalThis.work();
  }, { preset, pkg, what });
  await client.send('Profiler.enable');
  await client.send('Profiler.setSamplingInterval', { interval: 200 });
  await client.send('Profiler.start');
  const ms = await page.evaluate((n) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) globalThis.work();
    return performance.now() - t;
  }, Number(steps));
  const { profile } = await client.send('Profiler.stop');
  const self = new Map();
  const dt = new Map(profile.samples.map((id, i) => [i, profile.timeDeltas[i] ?? 0]));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const name = byId.get(id).callFrame.functionName || '(anonymous)';
    self.set(name, (self.get(name) ?? 0) + dt.get(i));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const unit = { train: 'step', eval: 'evaluation', llc: 'estimate' }[what];
  console.log(`${preset}: ${(ms / Number(steps)).toFixed(1)} ms/${unit} over ${steps} ${unit}s`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(100 * us / total).toFixed(1).padStart(5)}%  ${name.slice(0, 110)}`);
  }
} finally {
  await browser.close();
  server.close();
}
