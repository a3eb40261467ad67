// The views that test what a head does, in Chromium: on the reverse task, knock a head out by
// mouse and by keyboard and see the scores with and without it; patch a typed pair; read which
// part writes the answer and how heads compose; the grokking view says which task it is for, and
// on modular addition draws its measures; each view refreshes at evaluations while training;
// desktop, tablet and phone sizes, the phone by tap.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, SHOTS, untilStatus } from './session.mjs';

const TESTING = ['ablation', 'patching', 'attribution', 'composition', 'fourier'];
let session, page, errors, shot;

/** Trains the reverse task's preset for `steps` steps and opens the testing views (only those). */
async function trainReverse(p, steps, press = 'click') {
  await p.getByLabel('Corpus').selectOption('task:reverse');
  await p.getByLabel('Iterations', { exact: true }).fill(String(steps));
  await p.getByRole('button', { name: 'Train', exact: true })[press]();
  await untilStatus(p, new RegExp(`^Finished ${steps} steps`), 120000);
  await p.getByText('6. Inside the model')[press]();
  await p.locator('#inside-status').getByText(new RegExp(`^At step ${steps}`)).waitFor();
  // Only the testing views stay open, so each refresh computes just them.
  for (const details of await p.locator('#views > details').all()) {
    if (!TESTING.includes(await details.getAttribute('data-view'))) await details.evaluate((d) => { d.open = false; });
  }
}

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors, shot } = session);
  await trainReverse(page, 300);
});
after(() => session?.close());

test('knocking a head out by mouse and by keyboard shows the scores with and without it', async () => {
  const grid = page.locator('#ablation-grid');
  // A refresh between the press and the release (here: a view closed, so the views are asked
  // again) still knocks the pressed cell out.
  const cell = grid.getByRole('button', { name: /^Knock out layer 1 head 1:/ });
  await cell.scrollIntoViewIfNeeded();
  const box = await cell.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  const refreshed = page.evaluate(() => new Promise((resolve) => {
    new MutationObserver((_, observer) => { observer.disconnect(); resolve(); })
      .observe(document.getElementById('ablation-grid'), { subtree: true, childList: true, attributes: true, characterData: true });
    document.querySelector('[data-view="fourier"]').open = false;
  }));
  await refreshed;
  await page.mouse.up();
  const detail = page.locator('#ablation-detail');
  await detail.getByText(/^L1H1 \(layer 1 head 1\) knocked out: held-out accuracy [\d.]+% → [\d.]+%, held-out loss [\d.]+ → [\d.]+\. \d+ of the 8 shown problems flip/).waitFor({ timeout: 60000 });
  assert.equal(await grid.getByRole('button', { name: /^Knock out layer 1 head 1:/ }).getAttribute('aria-pressed'), 'true');
  // The keyboard: tab to another cell and press it.
  const mlp = grid.getByRole('button', { name: /^Knock out layer 2's MLP:/ });
  await mlp.focus();
  await page.keyboard.press('Enter');
  await detail.getByText(/^Layer 2's MLP knocked out/).waitFor();
  assert.match(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), /^Knock out layer 2's MLP/, 'the refresh keeps the keyboard on the cell');
  await page.getByLabel('Replace the output by').selectOption('zero');
  await page.waitForFunction(() => /zeros/.test(document.getElementById('ablation-fill').selectedOptions[0].text) && document.getElementById('ablation-detail').textContent.startsWith("Layer 2's MLP"));
  assert.match(await page.locator('#ablation-chart').getAttribute('aria-label'), /Each head's ablation cost \(accuracy\) at \d+ evaluations?, up to step 300/);
  await page.getByLabel('Cost as').selectOption('loss');
  assert.match(await page.locator('#ablation-chart').getAttribute('aria-label'), /Each head's ablation cost \(loss\)/);
  assert.match(await page.locator('#ablation-grid caption').textContent(), /^held-out loss added/);
  await page.locator('[data-view="ablation"]').screenshot({ path: `${SHOTS}40-ablation-view.png` });
  await shot('40-testing-views');
});

test('patching a typed pair and reading which part writes the answer', async () => {
  const summary = page.locator('#patching-summary');
  await summary.getByText(/^Clean ".+>" → ".+"; corrupted ".+>" → ".+"\. Logit difference/).waitFor();
  assert.match(await page.getByLabel('Clean').getAttribute('placeholder'), />$/, 'the proposed pair shows until one is typed');
  await page.getByLabel('Clean').fill('abcd');
  await page.getByLabel('Corrupted').fill('abce');
  await summary.getByText(/^Clean "abcd>" → "d"; corrupted "abce>" → "e"\./).waitFor();
  const stream = page.locator('#patching-stream table');
  assert.equal(await stream.locator('tr').count(), 1 + 5, 'a header and a row per position of abcd>');
  assert.match(await stream.locator('th').nth(2 + 3).textContent(), /^d\/e$/, 'the changed position is marked');
  // The clean stream entering layer 1 where the inputs differ restores everything.
  assert.equal(await stream.locator('tr').nth(1 + 3).locator('td').first().textContent(), '1.00');
  await page.getByLabel('Corrupted').fill('abcdd');
  await page.locator('[data-view="patching"] .error').getByText(/need prompts of the same length/).waitFor();
  assert.match(await page.locator('#attribution-summary').textContent(), /^Answer|^$/, 'the other views still answer');
  await page.getByLabel('Corrupted').fill('');
  await page.getByLabel('Clean').fill('');
  await page.locator('[data-view="patching"] .error').getByText(/^$/).waitFor({ state: 'attached' });
  await page.locator('#attribution-summary').getByText(/^Answer ".+" after ".+>": logit -?[\d.]+, -?[\d.]+ above ".+"\./).waitFor();
  assert.ok(await page.locator('#attribution-view tr').count() >= 1 + 11, 'embeddings, 8 heads, 2 attention biases, 2 MLPs, the norm bias');
  await page.locator('#composition-view table').first().waitFor();
  assert.equal(await page.locator('#composition-view table').count(), 3, 'Q, K and V between layers 1 and 2');
  await page.locator('[data-view="fourier"]').evaluate((d) => { d.open = true; });
  await page.locator('#fourier-summary').getByText(/for the modular addition task/).waitFor();
  for (const id of ['fourier-spectrum', 'fourier-losses']) assert.equal(await page.locator(`#${id}`).isVisible(), false, `${id}: a view that cannot answer shows its sentence and nothing else`);
  assert.deepEqual(errors, []);
});

test('while training, the testing views refresh at each evaluation', async () => {
  await page.getByLabel('Iterations', { exact: true }).fill('900');
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await page.locator('#inside-status').getByText(/^At step [4-9]\d\d/).waitFor({ timeout: 120000 });
  await untilStatus(page, /^Finished 900 steps/, 120000);
});

test('on modular addition, the Fourier view shows the spectrum, the key frequencies and the losses over training', async () => {
  await page.getByLabel('Corpus').selectOption('task:modular');
  await page.waitForFunction(() => document.getElementById('preset').value === 'grokking');
  await page.getByLabel('p', { exact: true }).fill('23');
  await page.getByLabel('Iterations', { exact: true }).fill('300');
  page.once('dialog', (d) => d.accept()); // a new run replaces the reverse one
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStatus(page, /^Finished 300 steps/, 120000);
  await page.locator('#fourier-summary').getByText(/^Step 300: key frequencies .+; restricted loss [\d.]+, excluded loss [\d.]+, held-out loss [\d.]+\.$/).waitFor();
  assert.match(await page.locator('#fourier-spectrum').getAttribute('aria-label'), /^Embedding norm at each of 11 frequencies; key frequencies /);
  assert.match(await page.locator('#fourier-losses').getAttribute('aria-label'), /^Losses at \d+ evaluations?; at step 300: train [\d.]+, held out [\d.]+, restricted [\d.]+, excluded [\d.]+$/);
  await page.locator('[data-view="fourier"]').screenshot({ path: `${SHOTS}43-fourier-view.png` });
  assert.deepEqual(errors, []);
});

for (const [name, viewport, device] of [
  ['tablet', { width: 820, height: 1180 }, {}],
  ['phone', { width: 390, height: 844 }, { hasTouch: true, isMobile: true }],
]) {
  test(`on a ${name}, the testing views fit and a head is knocked out by ${device.hasTouch ? 'tap' : 'click'}`, async () => {
    const small = await openPlayground(viewport, [], device);
    try {
      const press = device.hasTouch ? 'tap' : 'click';
      await trainReverse(small.page, 100, press);
      await small.page.locator('#ablation-grid').getByRole('button', { name: /^Knock out layer 2 head 2:/ })[press]();
      await small.page.locator('#ablation-detail').getByText(/^L2H2 \(layer 2 head 2\) knocked out/).waitFor();
      const overflow = await small.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow}px`);
      await small.page.locator('[data-view="ablation"]').scrollIntoViewIfNeeded();
      await small.shot(`41-testing-${name}-ablation`);
      await small.page.locator('[data-view="patching"]').scrollIntoViewIfNeeded();
      await small.shot(`42-testing-${name}-patching`);
      assert.deepEqual(small.errors, []);
    } finally {
      await small.close();
    }
  });
}
