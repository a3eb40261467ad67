#!/usr/bin/env node
// Training speed side by side, nano-cpu: native `gpt bench` on 1 and 2 threads (and, when built,
// an AVX2-only build on 1 thread: a browser has 128-bit SIMD, so this is the fair comparison on
// an AVX-512 machine: cargo build --release -p gpt-cli --no-default-features --target-dir
// target/avx2), the PyTorch
// reference on 1 and 2 threads (when torch is installed), and the page in Chromium and Firefox
// with 1 and 2 workers. Each is measured in every round, rounds alternate, and the medians and
// their ratios are printed: the machine is shared, so only ratios measured together mean much.
// Usage: node bench/compare.mjs [--rounds 3] [--seconds 10] [--only native,torch,chromium,firefox]
// (after scripts/build.sh and cargo build --release -p gpt-cli)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serve } from '../scripts/serve.mjs';
import { measure } from './browser.mjs';
import { upperMedian } from './median.mjs';

const { values } = parseArgs({ options: {
  rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '10' },
  only: { type: 'string', default: 'native,torch,chromium,firefox' },
  data: { type: 'string', default: '../shared/data/tinyshakespeare.txt' },
} });
const only = new Set(values.only.split(','));
const json = (command, args) => JSON.parse(execFileSync(command, args, { encoding: 'utf8' }).trim().split('\n').at(-1));

const engines = [];
if (only.has('native') && existsSync('target/avx2/release/gpt')) {
  engines.push(['native AVX2 build, 1 thread', async () => json('target/avx2/release/gpt', ['bench', '--iters', '40', '--threads', '1', '--json']).tokens_per_s]);
}
for (const threads of [1, 2]) {
  if (only.has('native')) {
    engines.push([`native, ${threads} thread${threads > 1 ? 's' : ''}`, async () => json('target/release/gpt', ['bench', '--iters', '40', '--threads', String(threads), '--json']).tokens_per_s]);
  }
  if (only.has('torch')) {
    engines.push([`PyTorch, ${threads} thread${threads > 1 ? 's' : ''}`, async () => json('python3', ['bench/torch_reference.py', '--data', values.data, '--iters', '40', '--threads', String(threads)]).tokens_per_s]);
  }
}
const { server, url } = await serve(0);
for (const browser of ['chromium', 'firefox'].filter((b) => only.has(b))) {
  for (const workers of [1, 2]) {
    engines.push([`${browser}, ${workers} worker${workers > 1 ? 's' : ''}`, async () => (await measure({ browser, workers, seconds: Number(values.seconds) }, url)).tokens_per_s]);
  }
}

const results = new Map(engines.map(([name]) => [name, []]));
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [name, run] of engines) {
      const tps = await run();
      results.get(name).push(tps);
      console.error(`round ${round}: ${name}: ${tps} tokens/s`);
    }
  }
} finally {
  server.close();
}

const medians = Object.fromEntries([...results].map(([name, xs]) => [name, upperMedian(xs)]));
console.log('| engine | tokens/s (median) | runs |\n|---|---:|---|');
for (const [name, xs] of results) console.log(`| ${name} | ${medians[name].toLocaleString('en-US')} | ${xs.join(', ')} |`);
const ratio = (a, b) => (a in medians && b in medians ? `${(medians[a] / medians[b]).toFixed(2)}×` : 'n/a');
console.log('\n| ratio | value |\n|---|---:|');
for (const [a, b] of [
  ['chromium, 1 worker', 'native, 1 thread'], ['chromium, 1 worker', 'native AVX2 build, 1 thread'],
  ['chromium, 2 workers', 'chromium, 1 worker'], ['firefox, 1 worker', 'native, 1 thread'],
  ['firefox, 1 worker', 'native AVX2 build, 1 thread'], ['firefox, 2 workers', 'firefox, 1 worker'],
  ['native, 2 threads', 'native, 1 thread'], ['native, 2 threads', 'PyTorch, 2 threads'], ['native, 1 thread', 'PyTorch, 1 thread'],
]) console.log(`| ${a} / ${b} | ${ratio(a, b)} |`);
