#!/usr/bin/env node
// The long soak: trains the tiny preset in Chromium for many steps while sampling and reading
// attention, and prints the memory at each checkpoint and its growth after warm-up (see
// tests/e2e/soak.mjs). Exits non-zero past the bounds the short soak in the test suite uses.
// Usage: node bench/soak.mjs [--steps 5000] [--every 250] [--warmup 1000]   (after scripts/build.sh)
import { parseArgs } from 'node:util';
import { BOUNDS, growth, soak } from '../tests/e2e/soak.mjs';

const { values } = parseArgs({ options: { steps: { type: 'string', default: '5000' }, every: { type: 'string', default: '250' }, warmup: { type: 'string', default: '1000' } } });
const [steps, every, warmup] = [values.steps, values.every, values.warmup].map(Number);
const started = Date.now();
const samples = await soak({ steps, every, log: console.log });
const { start, end, wasm, heap } = growth(samples, warmup);
const first = samples[0];
console.log(`\n${steps} steps in ${((Date.now() - started) / 1000).toFixed(0)} s, sampling and reading attention every ${every}`);
console.log('| | step | wasm memory (MiB, all workers) | JS heap (MiB, page) |\n|---|---:|---:|---:|');
for (const [name, s] of [['start', first], ['after warm-up', start], ['end', end]]) console.log(`| ${name} | ${s.step} | ${s.wasm.toFixed(1)} | ${s.heap.toFixed(1)} |`);
console.log(`growth after warm-up: wasm ${wasm.toFixed(1)} MiB (bound ${BOUNDS.wasm}), JS heap ${heap.toFixed(1)} MiB (bound ${BOUNDS.heap})`);
process.exitCode = wasm <= BOUNDS.wasm && heap <= BOUNDS.heap ? 0 : 1;
