#!/usr/bin/env node
// What finding a circuit costs. Natively (the CLI, one thread): exact patching, EAP and EAP-IG
// alone on every edge of the induction preset's model (110 edges) and nano-cpu's (479), 32 pairs,
// the median of --rounds each. In the page (Chromium): the induction preset trained --steps
// steps, then "Find the circuit now" timed from the click to the answer (all three scores, every
// circuit and greedy pruning), alternating the two corruptions, the median of --rounds.
// Usage: node bench/circuit.mjs [--rounds 3] [--steps 400] [--data ../shared/data]
//        (after `cargo build --release -p gpt-cli` and scripts/build.sh)
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { median } from './median.mjs';
import { openPlayground, untilStatus } from '../tests/e2e/session.mjs';

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
console.log('| model | edges | exact | EAP | EAP-IG (10 steps) |');
console.log('|---|---|---|---|---|');
for (const [name, args] of Object.entries(models)) {
  const checkpoint = `${OUT}${name}.safetensors`;
  gpt('train', ...args, '--json', '--out', checkpoint);
  const times = {};
  let edges = 0;
  for (let r = 0; r < rounds; r++) {
    for (const method of ['exact', 'eap', 'eap-ig']) {
      const out = JSON.parse(gpt('inspect', '--checkpoint', checkpoint, 'circuit', '--corruption', 'swap', '--time', method));
      (times[method] ??= []).push(out.ms);
      edges = out.edges;
    }
  }
  const ms = (m) => `${Math.round(median(times[m]))} ms`;
  console.log(`| ${name} | ${edges} | ${ms('exact')} | ${ms('eap')} | ${ms('eap-ig')} |`);
}

const session = await openPlayground({ width: 1280, height: 1000 });
try {
  const { page } = session;
  await page.getByLabel('Corpus').selectOption('task:repeat');
  await page.getByLabel('Iterations', { exact: true }).fill(values.steps);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStatus(page, new RegExp(`^Finished ${values.steps} steps`), 600000);
  await page.getByText('6. Inside the model').click();
  for (const details of await page.locator('#views > details').all()) {
    if (await details.getAttribute('data-view') !== 'circuit') await details.evaluate((d) => { d.open = false; });
  }
  const found = [];
  for (let r = 0; r < rounds; r++) {
    const corruption = r % 2 ? 'symbol' : 'swap';
    const ms = await page.evaluate((value) => new Promise((resolve) => {
      const summary = document.getElementById('circuit-summary');
      const select = document.getElementById('circuit-corruption');
      const start = performance.now();
      const seen = new MutationObserver(() => {
        if (/^32 pairs/.test(summary.textContent) && document.getElementById('circuit-find').textContent === 'Find the circuit now') {
          seen.disconnect();
          resolve(performance.now() - start);
        }
      });
      seen.observe(summary, { childList: true, characterData: true, subtree: true });
      select.value = value;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    }), corruption);
    found.push(ms);
  }
  console.log(`page (Chromium): the induction preset's whole circuit found in ${Math.round(median(found))} ms (median of ${rounds}: ${found.map(Math.round).join(', ')})`);
} finally {
  await session.close();
}
