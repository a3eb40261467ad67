// Training with several Web Workers in Chromium: the losses do not depend on their number (nor on
// changing it while training, nor on a pause mid-evaluation), and a worker that crashes stops
// training with a message while the model keeps its last good step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, saveCheckpoint, untilStep, untilStatus } from './session.mjs';

let session, page, errors;

before(async () => {
  session = await openPlayground();
  ({ page, errors } = session);
  page.on('dialog', (d) => d.accept());
  await page.getByLabel('Preset').selectOption('tiny'); // 16 × 32 tokens: 2 shards a step
});
after(() => session?.close());

/** The per-step losses and the evaluations a checkpoint saved now records (its `history` metadata). */
const savedHistory = async () => (await saveCheckpoint(page)).history;

async function trainWith(workers, iterations) {
  await page.getByLabel('Workers').selectOption(String(workers));
  await page.getByLabel('Iterations').fill(String(iterations));
  await page.getByLabel('Warmup steps').fill('5');
  await page.getByRole('button', { name: 'Train' }).click();
}

test('1, 2 and 4 workers give the same losses, evaluations and learning coefficient, bit for bit', async () => {
  const historyWith = async (workers) => {
    await trainWith(workers, 10);
    await untilStatus(page, /^Finished 10 steps/);
    return { stats: await page.locator('#stats').textContent(), history: await savedHistory() };
  };
  const one = await historyWith(1);
  assert.match(one.stats, /on 1 worker/);
  assert.equal(one.history.losses.length, 10);
  assert.deepEqual(one.history.evals.map((e) => e.step), [0, 10]);
  assert.deepEqual(one.history.llc.map((r) => r.step), [10], 'the learning coefficient, recorded at the last evaluation');
  const two = await historyWith(2);
  assert.match(two.stats, /tokens\/s on 2 workers \([\d,]+ each\)/);
  assert.deepEqual(two.history, one.history);
  // More workers than a step has shards (2): the extra ones wait, and share the evaluations.
  const four = await historyWith(4);
  assert.match(four.stats, /on 2 workers/);
  assert.deepEqual(four.history, one.history);
  assert.deepEqual(errors, []);
});

test('under Muon (sharing its Newton–Schulz work) and under SGD, 1 and 2 workers give the same losses, bit for bit', async () => {
  const saved = async (workers) => {
    await trainWith(workers, 10);
    await untilStatus(page, /^Finished 10 steps/);
    return saveCheckpoint(page);
  };
  for (const [optimizer, own] of [['muon', 'Muon momentum'], ['sgd', 'SGD momentum']]) {
    await page.getByLabel('Optimizer').selectOption(optimizer);
    await page.getByLabel(own).fill('0.9');
    const one = await saved(1);
    assert.equal(one.history.losses.length, 10);
    const train = JSON.parse(one.metadata.train_config);
    assert.deepEqual([train.optimizer, train[own.toLowerCase().replace(' ', '_')]], [optimizer, 0.9], 'trained by the optimiser picked, at its own setting');
    assert.deepEqual((await saved(2)).history, one.history, optimizer);
  }
  await page.getByLabel('Optimizer').selectOption('adamw');
  assert.deepEqual(errors, []);
});

test('Automatic workers time the counts up to one per core and keep the fastest; the losses are 1 worker\'s, bit for bit', async () => {
  // Each count is timed for at least half a second of steps: 600 steps leave room for both at
  // 2 ms a step, whatever the machine.
  await trainWith(1, 600);
  await untilStatus(page, /^Finished 600 steps/);
  const one = await savedHistory();
  await page.getByLabel('Workers').selectOption('auto');
  await page.getByLabel('Iterations').fill('600');
  await page.getByRole('button', { name: 'Train' }).click();
  await page.locator('#stats').getByText(/automatic: trying counts/).waitFor();
  await untilStatus(page, /^Finished 600 steps/);
  // The browser reports 2 cores and a step has 2 shards: 2 workers, then 1, are timed.
  const stats = await page.locator('#stats').textContent();
  const [, workers, tried] = stats.match(/on (\d) workers? \((?:[\d,]+ each; )?automatic, the fastest per step of (2: \d+ ms, 1: \d+ ms)\)/) ?? [];
  assert.ok(tried, stats);
  const ms = Object.fromEntries(tried.split(', ').map((t) => t.split(': ').map(parseFloat)));
  // The count kept is the faster by the times measured; shown rounded, a tie can go either way.
  if (ms[1] !== ms[2]) assert.equal(Number(workers), ms[1] < ms[2] ? 1 : 2, `${workers} workers kept of ${tried}`);
  assert.deepEqual(await savedHistory(), one);
  assert.deepEqual(errors, []);
});

test('a crashed worker stops training with a message; the model keeps its step and trains on', async () => {
  await trainWith(2, 600);
  await untilStep(page, 21);
  const helper = page.workers().find((w) => new URL(w.url()).pathname.endsWith('/helper-worker.js'));
  await helper.evaluate(() => setTimeout(() => { throw new Error('simulated crash'); }));
  await page.getByRole('alert').getByText(/a training worker stopped \(.*simulated crash\); the model keeps its last good step/).waitFor();
  const status = await page.getByRole('status').textContent();
  const stoppedAt = Number(status.match(/Stopped at step ([\d,]+)/)[1].replace(/,/g, ''));
  assert.ok(stoppedAt > 20, status);
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.waitForFunction((n) => Number(document.getElementById('stats').textContent.match(/step ([\d,]+)/)?.[1].replace(/,/g, '') ?? 0) > n + 20, stoppedAt);
  await page.getByRole('button', { name: 'Pause' }).click();
  await untilStatus(page, /^Paused at step/);
  assert.deepEqual(errors, []);
});

async function set(label, value) {
  await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByLabel(label, { exact: true }).dispatchEvent('change');
}

test('changing the worker count while training, even mid-evaluation, changes nothing', async () => {
  await set('Eval every', '4');
  await set('Eval batches', '120'); // evaluations long enough to be caught in the middle
  await trainWith(1, 16);
  await untilStatus(page, /^Finished 16 steps/);
  const unbroken = await savedHistory();
  await trainWith(2, 16);
  for (let i = 0; /^Training/.test(await page.getByRole('status').textContent()); i++) {
    await page.getByLabel('Workers').selectOption(String(1 + (i % 3)));
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  await untilStatus(page, /^Finished 16 steps/);
  assert.deepEqual(await savedHistory(), unbroken);
  assert.equal(unbroken.evals.length, 5);
  assert.deepEqual(errors, []);
});

test('Pause in the middle of an evaluation drops it at once; Resume evaluates again, as if unbroken', async () => {
  await set('Eval every', '4');
  await set('Eval batches', '200');
  await trainWith(1, 8);
  await untilStatus(page, /^Finished 8 steps/);
  const unbroken = await savedHistory();
  await trainWith(2, 8);
  await untilStatus(page, /^Training/);
  await page.getByRole('button', { name: 'Pause' }).click(); // the step-0 evaluation is under way
  await untilStatus(page, /^Paused at step 0\./);
  assert.deepEqual((await savedHistory()).evals, [], 'the evaluation was dropped, not finished first');
  await page.getByRole('button', { name: 'Resume' }).click();
  await untilStatus(page, /^Finished 8 steps/);
  assert.deepEqual(await savedHistory(), unbroken);
  assert.equal(unbroken.evals.length, 3);
  assert.deepEqual(errors, []);
});
