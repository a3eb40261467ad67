// The short soak: 600 steps, memory recorded every 100. bench/soak.mjs runs the long one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOUNDS, growth, soak } from './soak.mjs';

test('memory holds flat while training, sampling and reading attention', async () => {
  const samples = await soak({ steps: 600, every: 100, log: console.log });
  const { wasm, heap } = growth(samples, 200);
  assert.ok(wasm <= BOUNDS.wasm, `wasm memory grew ${wasm.toFixed(1)} MiB after warm-up`);
  assert.ok(heap <= BOUNDS.heap, `the JS heap grew ${heap.toFixed(1)} MiB after warm-up`);
});
