// The automatic worker count's search (web/worker-count.js), with step times made up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { candidates, WorkerSearch } from '../../web/worker-count.js';

/** Feeds `search` steps timed by `msAt(count)` until it settles; returns the counts it used. */
function settle(search, msAt) {
  const used = [];
  for (let i = 0; i < 1000 && !search.settled; i++) {
    used.push(search.count);
    search.record(msAt(search.count));
  }
  return used;
}

test('the counts tried: one per core, then halving down to one', () => {
  assert.deepEqual(candidates(8), [8, 4, 2, 1]);
  assert.deepEqual(candidates(6), [6, 3, 2, 1]);
  assert.deepEqual(candidates(2), [2, 1]);
  assert.deepEqual(candidates(1), [1]);
});

test('it keeps the fastest count, and stops once fewer workers are clearly slower', () => {
  // 4 reported cores on a 2-core machine: 2 workers are fastest, 1 is much slower.
  const search = new WorkerSearch(4);
  const used = settle(search, (n) => ({ 4: 130, 2: 100, 1: 190 })[n]);
  assert.equal(search.count, 2);
  assert.deepEqual(search.progress.timed.map((t) => t.workers), [4, 2, 1]);
  assert.deepEqual([...new Set(used)], [4, 2, 1]);
  // 8 cores where 8 are fastest: 4 is more than 10% slower, so 2 and 1 are never tried.
  const wide = new WorkerSearch(8);
  settle(wide, (n) => 400 / n + (n === 8 ? 0 : 10));
  assert.equal(wide.count, 8);
  assert.deepEqual(wide.progress.timed.map((t) => t.workers), [8, 4]);
});

test('the steps just after a change are not timed, and a count needs enough steps and time', () => {
  const search = new WorkerSearch(2);
  // Two slow warm-up steps, then fast ones: the warm-up must not count against 2 workers.
  for (const ms of [5000, 5000]) assert.equal(search.record(ms), false);
  let changed = false;
  for (let i = 0; i < 4 && !changed; i++) changed = search.record(150);
  assert.ok(changed, 'after 4 steps over 500 ms, 2 workers are timed and 1 comes next');
  assert.equal(search.count, 1);
  assert.equal(search.progress.timed[0].msPerStep, 150);
  settle(search, () => 300);
  assert.equal(search.count, 2);
});

test('one core: nothing to search', () => {
  const search = new WorkerSearch(1);
  assert.ok(search.settled);
  assert.equal(search.count, 1);
  assert.equal(search.record(10), false);
});
