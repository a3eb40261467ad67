#!/usr/bin/env node
// A run that trains badly must not train slowly. The going-wrong lesson's two runs, the tiny preset
// on names for 300 steps: a healthy learning rate (0.003) and one that stalls (0.3, decaying to
// 0.03), whose saturated softmaxes and GELUs once filled the gradients with subnormal floats and
// made it nine times slower on some CPUs. Natively (`gpt train`, one thread) and in Chromium (the
// wasm engine on a page's thread), each round runs both, alternating which goes first; the last
// lines give each one's median and the median of the rounds' ratios, stalled over healthy.
// Usage: node bench/stalled.mjs [--rounds 5] [--only native,chromium] [--package pkg-relaxed]
//        (after scripts/build.sh and cargo build --release -p gpt-cli)
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';
import { median } from './median.mjs';

const { values } = parseArgs({ options: {
  rounds: { type: 'string', default: '5' }, only: { type: 'string', default: 'native,chromium' },
  package: { type: 'string', default: 'pkg-relaxed' }, data: { type: 'string', default: '../shared/data/names.txt' },
} });
const RATES = { healthy: { learning_rate: 0.003, min_lr: 0.0003 }, stalled: { learning_rate: 0.3, min_lr: 0.03 } };
const STEPS = 300;

/** Tokens per second of `gpt train` at `rates`, and its final training loss. */
function native({ learning_rate, min_lr }) {
  const args = ['train', '--data', values.data, '--preset', 'tiny', '--iters', String(STEPS), '--threads', '1',
    '--lr', String(learning_rate), '--min-lr', String(min_lr), '--eval-interval', String(STEPS), '--json'];
  const summary = JSON.parse(execFileSync('target/release/gpt', args, { encoding: 'utf8' }).trim().split('\n').at(-1));
  return { tokens_per_s: summary.tokens_per_s, loss: summary.train_loss };
}

/** The same in a Chromium page: the wasm engine's steps, timed without evaluations. */
async function inPage(browser, url, rates) {
  const page = await browser.newPage();
  try {
    await page.goto(new URL('/web/favicon.svg', url).href);
    return await page.evaluate(async ({ dir, rates, steps }) => {
      const { openRun } = await import('/bench/engine-driver.js');
      const { run, settings, train } = await openRun(dir, 'tiny', 0, { corpus: 'names', train: { ...rates, max_iters: steps } });
      const start = performance.now();
      train(steps);
      const seconds = (performance.now() - start) / 1000;
      const tokens = steps * settings.train.batch_size * settings.model.block_size;
      return { tokens_per_s: Math.round(tokens / seconds), loss: run.takeReport().losses.at(-1) };
    }, { dir: values.package, rates, steps: STEPS });
  } finally {
    await page.close();
  }
}

const only = new Set(values.only.split(','));
const { server, url } = await serve(0);
const browser = only.has('chromium') ? await launchChromium() : null;
const engines = [...(only.has('native') ? [['native', native]] : []), ...(browser ? [['chromium', (r) => inPage(browser, url, r)]] : [])];
try {
  for (const [engine, measure] of engines) {
    const speeds = { healthy: [], stalled: [] };
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const kind of round % 2 ? ['stalled', 'healthy'] : ['healthy', 'stalled']) {
        const result = await measure(RATES[kind]);
        speeds[kind].push(result.tokens_per_s);
        console.log(JSON.stringify({ engine, kind, round, ...result }));
      }
    }
    const ratios = speeds.stalled.map((s, i) => +(speeds.healthy[i] / s).toFixed(3));
    console.log(JSON.stringify({ engine, healthy_tokens_per_s: median(speeds.healthy), stalled_tokens_per_s: median(speeds.stalled),
      slowdowns: ratios, median_slowdown: median(ratios) }));
  }
} finally {
  await browser?.close();
  server.close();
}
