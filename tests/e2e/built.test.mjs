// A model built by hand, in Chromium: chosen among the presets ("Built, not trained"), it answers
// at once; the circuit view finds its circuit each way and scores each against the circuit it was
// built with (EAP misses the key edge under the swap); its shape cannot change under it, and the
// page says why. Desktop and phone sizes; axe-core finds nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, openPlayground, SHOTS, untilStatus } from './session.mjs';

let session, page, errors, shot;

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors, shot } = session);
});
after(() => session?.close());

test('the built induction model answers, and each way of finding its circuit is scored against it', async () => {
  const group = page.locator('#preset optgroup[label="Built, not trained"]');
  assert.deepEqual(await group.locator('option').allTextContents(), ['induction, built by hand', 'induction with a backup head, built by hand', 'reverse, built by hand']);
  await page.locator('#preset').selectOption('induction, built by hand');
  await page.locator('#preset-description').getByText(/^weights set by hand, not trained: a previous-token head/).waitFor();
  assert.equal(await page.getByLabel('Corpus').inputValue(), 'task:repeat');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStatus(page, /^Finished \d+ steps/, 60000);
  await page.getByText('6. Inside the model').click();
  for (const details of await page.locator('#views > details').all()) {
    if (await details.getAttribute('data-view') !== 'circuit') await details.evaluate((d) => { d.open = false; });
  }
  const summary = page.locator('#circuit-summary');
  await page.getByRole('button', { name: 'Find the circuit now' }).click();
  await summary.getByText(/Against the circuit this model was built with \(2 edges\): exact patching AUROC 1\.00, precision 1\.00, recall 1\.00;/).waitFor({ timeout: 60000 });
  await page.getByLabel('Corruption').selectOption('swap');
  // Under the swap the induction head's softmax is saturated: EAP's gradient misses the K-edge.
  await summary.getByText(/Against the circuit this model was built with \(4 edges\): exact patching AUROC 1\.00, precision 1\.00, recall 1\.00;.* EAP AUROC 0\.\d+/).waitFor({ timeout: 60000 });
  await page.locator('[data-view="circuit"]').screenshot({ path: `${SHOTS}46-built-circuit.png` });
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(errors, []);
});

test('on the backup model, single edges miss one induction head, and greedy pruning keeps one of the two', async () => {
  page.once('dialog', (d) => d.accept()); // start over, from the 20 steps trained
  await page.locator('#preset').selectOption('induction with a backup head, built by hand');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStatus(page, /^Finished \d+ steps/, 60000);
  const summary = page.locator('#circuit-summary');
  await page.getByLabel('Corruption').selectOption('symbol');
  await page.getByRole('button', { name: 'Find the circuit now' }).click();
  // Either head's edges alone change nothing: exact patching scores both heads' near 0, and EAP-IG
  // and greedy pruning keep one head's pair of the two.
  await summary.getByText(/Against the circuit this model was built with \(8 edges\): exact patching AUROC 0\.\d+.* EAP-IG AUROC 1\.00, precision 1\.00, recall 0\.75;.* greedy pruning AUROC 0\.\d+, precision 1\.00, recall 0\.75\./).waitFor({ timeout: 60000 });
  await page.locator('[data-view="circuit"]').screenshot({ path: `${SHOTS}46-built-backup-circuit.png` });
  assert.deepEqual(errors, []);
});

test('a built model keeps its shape: a change is refused with the reason, and the preset undoes it', async () => {
  await page.getByLabel('Layers').fill('3');
  page.once('dialog', (d) => d.accept()); // start over, from the 20 steps trained
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.getByText(/the model backup is built by hand for its own shape and task, so they cannot change/).first().waitFor({ timeout: 30000 });
  await page.locator('#preset').selectOption('reverse, built by hand');
  assert.equal(await page.getByLabel('Layers').inputValue(), '1');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#preset').scrollIntoViewIfNeeded();
  await shot('46-built-preset-phone');
  assert.deepEqual(errors, []);
});
