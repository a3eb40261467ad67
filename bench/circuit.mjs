#!/usr/bin/env node
// What finding a circuit costs. Natively (the CLI): exact patching on one thread and on two, EAP
// and EAP-IG alone, on every edge of the induction preset's model (110 edges) and nano-cpu's
// (479), 32 pairs, the median of --rounds each. In the page (Chromium): the induction preset
// trained --steps steps, then "Find the circuit now" with one worker and with two, alternating:
// exact patching shared among the workers (as the view reports it) and the whole find from the
// click to the answer (all three scores, every circuit and greedy pruning), the median of --rounds.
// Usage: node bench/circuit.mjs [--rounds 3] [--steps 400] [--data ../shared/data]
//        (after `cargo build --release -p gpt-cli` and scripts/build.sh)
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { median } from './median.mjs';
import { openPlayground, trainRepeatAndOpenView } from '../tests/e2e/session.mjs';

const GPT = new URL('../target/release/gpt', import.meta.url).pathname;
const OUT = new URL('../target/circuit-bench/', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    steps: { type: 'string', default: '400' },
    data: { type: 'string', default: new URL('../../shared/data', import.meta.url).pathname },
  },
});
const rounds = Number(values.rounds);
mkdirSync(OUT, { recursive: true });
const gpt = (...args) => execFileSync(GPT, args, { encoding: 'utf8', maxBuffer: 1 << 28 });

const models = {
  induction: ['--task', 'repeat'],
  'nano-cpu': ['--preset', 'nano-cpu', '--data', `${values.data}/tinyshakespeare.txt`, '--iters', '100'],
};
console.log('| model | edges | exact, 1 thread | exact, 2 threads | EAP | EAP-IG (10 steps) |');
console.log('|---|---|---|---|---|---|');
const methods = { 'exact-1': ['exact', '1'], 'exact-2': ['exact', '2'], eap: ['eap', '1'], 'eap-ig': ['eap-ig', '1'] };
for (const [name, args] of Object.entries(models)) {
  const checkpoint = `${OUT}${name}.safetensors`;
  gpt('train', ...args, '--json', '--out', checkpoint);
  const times = {};
  let edges = 0;
  for (let r = 0; r < rounds; r++) {
    for (const [key, [method, threads]] of Object.entries(methods)) {
      const out = JSON.parse(gpt('inspect', '--checkpoint', checkpoint, 'circuit', '--corruption', 'swap', '--time', method, '--threads', threads));
      (times[key] ??= []).push(out.ms);
      edges = out.edges;
    }
  }
  const ms = (m) => `${Math.round(median(times[m]))} ms`;
  console.log(`| ${name} | ${edges} | ${ms('exact-1')} | ${ms('exact-2')} | ${ms('eap')} | ${ms('eap-ig')} |`);
}

const session = await openPlayground({ width: 1280, height: 1000 });
try {
  const { page } = session;
  await trainRepeatAndOpenView(page, Number(values.steps), 'circuit', 900000);
  const found = { 1: [], 2: [] };
  const exact = { 1: [], 2: [] };
  for (let r = 0; r < rounds; r++) {
    for (const workers of [1, 2]) {
      await page.getByLabel('Workers').selectOption(String(workers));
      const corruption = (2 * r + workers) % 2 ? 'symbol' : 'swap';
      const [ms, text] = await page.evaluate((value) => new Promise((resolve) => {
        const summary = document.getElementById('circuit-summary');
        const select = document.getElementById('circuit-corruption');
        const start = performance.now();
        const seen = new MutationObserver(() => {
          if (/^32 pairs/.test(summary.textContent) && document.getElementById('circuit-find').textContent === 'Find the circuit now') {
            seen.disconnect();
            resolve([performance.now() - start, summary.textContent]);
          }
        });
        seen.observe(summary, { childList: true, characterData: true, subtree: true });
        select.value = value;
        select.dispatchEvent(new Event('change', { bubbles: true }));
      }), corruption);
      const shared = text.match(/patched exactly in ([\d.]+) s, shared by (\d+) worker/);
      if (!shared || Number(shared[2]) !== workers) throw new Error(`${workers} workers: ${text}`);
      found[workers].push(ms);
      exact[workers].push(1000 * Number(shared[1]));
    }
  }
  const line = (times) => `${Math.round(median(times))} ms (${times.map(Math.round).join(', ')})`;
  for (const workers of [1, 2]) {
    console.log(`page (Chromium), ${workers} worker${workers === 1 ? '' : 's'}: exact patching ${line(exact[workers])}; the whole circuit found in ${line(found[workers])}`);
  }
} finally {
  await session.close();
}
