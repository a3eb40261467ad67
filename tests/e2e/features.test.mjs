// The features section in Chromium: an autoencoder trained in the tab on a trained model, its live
// measures, the feature list and a card by mouse and by keyboard, which features fire on a typed
// text, a feature knocked out and one steered with; a refusal while the model trains; desktop,
// tablet and phone sizes, and no accessibility rule broken with it open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, openPlayground, SHOTS, trainTiny, untilStatus } from './session.mjs';

let session, page, errors;
/** The features form: the superposition section has a Kind menu of its own. */
const form = () => page.locator('#features-form');

/** Trains the tiny preset for `steps`, then an autoencoder on it for `featureSteps`. */
async function trainFeatures(p, steps, featureSteps, press = 'click') {
  await trainTiny(p, steps, press);
  if (!await p.locator('#features').evaluate((d) => d.open)) await p.getByText('8. Features')[press]();
  await p.getByLabel('Steps', { exact: true }).fill(String(featureSteps));
  await p.getByLabel('Active per token (k)').fill('8');
  await p.getByRole('button', { name: 'Train features' })[press]();
  await p.locator('#features-status').getByText(new RegExp(`^Step ${featureSteps} of ${featureSteps}:`)).waitFor({ timeout: 120000 });
  await p.locator('#features-list tbody tr').first().waitFor();
  await p.locator('#features-card-title').getByText(/^Feature \d+$/).waitFor();
}

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = session);
  await trainFeatures(page, 200, 60);
});
after(() => session?.close());

test('an autoencoder trains in the tab and shows its measures, its features and a card', async () => {
  const measures = await page.locator('#features-measures').textContent();
  const explained = Number(measures.match(/Variance explained([\d.]+)%/)?.[1]);
  assert.ok(explained > 50 && explained <= 100, measures);
  assert.match(measures, /Loss added\+-?[\d.e-]+Loss recovered-?[\d.]+%L0[\d.]+Dead[\d.]+%Silent in [\d,]+ tokens[\d.]+%Dense[\d.]+%/);
  assert.ok(await page.locator('#features-read').isVisible(), 'it says which loss measure to read');
  assert.match(await page.locator('#features-losses').getAttribute('aria-label'), /^The autoencoder's training loss over 60 steps: [\d.]+ at step 1, [\d.]+ at step 60$/);
  assert.match(await page.locator('#features-status').textContent(), /^Step 60 of 60: [\d,]+ features on [\d,]+ channels, reading the model at step 200\./);
  assert.ok(await page.locator('#features-list tbody tr').count() >= 10);
  const contexts = page.locator('#features-contexts li');
  assert.ok(await contexts.count() >= 1);
  assert.equal(await contexts.first().locator('.token.strongest').count(), 1, 'the strongest token marked');
  assert.equal(await page.locator('#features-histogram span').count(), 24);
  assert.equal(await page.locator('#features-promoted li').count(), 8);
  await page.locator('#features').screenshot({ path: `${SHOTS}60-features.png` });
  assert.deepEqual(errors, []);
});

test('a feature opens by keyboard, is knocked out and steers the text', async () => {
  const row = page.locator('#features-list tbody tr').nth(2);
  const feature = await row.locator('td').first().textContent();
  await row.focus();
  await page.keyboard.press('Enter');
  await page.locator('#features-card-title').getByText(`Feature ${feature}`, { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Knock it out' }).click();
  await page.locator('#features-knock-result').getByText(new RegExp(`^Without feature ${feature}, the held-out loss goes from [\\d.]+ to [\\d.]+\\.$`)).waitFor();
  await page.getByLabel('Steer with strength').fill('20');
  await page.locator('#features-steer').click();
  await page.locator('#features-steered dt').nth(1).getByText(`With feature ${feature} at 20`).waitFor();
  const [plain, steered] = await page.locator('#features-steered dd').allTextContents();
  assert.ok(plain.length > 0 && steered.length > 0);
  assert.deepEqual(errors, []);
});

test('two workers share the autoencoder\u2019s steps and train the same features as one', async () => {
  const trainOn = async (workers) => {
    await page.getByLabel('Workers').selectOption(workers);
    await page.getByLabel('Steps', { exact: true }).fill('150');
    await page.getByRole('button', { name: 'Train features' }).click();
    await page.locator('#features-status').getByText(new RegExp(`^Step \\d+ of 150, [\\d,]+ tokens/s on ${workers} workers?, `)).waitFor();
    await page.locator('#features-status').getByText(/^Step 150 of 150:/).waitFor({ timeout: 120000 });
    await page.locator('#features-list tbody tr').first().waitFor();
    return [await page.locator('#features-measures').textContent(), await page.locator('#features-list tbody').textContent()];
  };
  const two = await trainOn('2');
  assert.deepEqual(await trainOn('1'), two, 'the same measures and features');
  await page.getByLabel('Workers').selectOption('auto');
  assert.deepEqual(errors, []);
});

test('a typed text shows the features on each token, and one opens its card', async () => {
  await page.getByLabel('Which features fire here?').fill('hello');
  const tokens = page.locator('#features-which-tokens li');
  await tokens.nth(4).waitFor();
  assert.equal(await tokens.count(), 5);
  const first = tokens.first().getByRole('button').first();
  const feature = (await first.textContent()).split(' ')[0];
  await first.click();
  await page.locator('#features-card-title').getByText(`Feature ${feature}`, { exact: true }).waitFor();
  assert.deepEqual(errors, []);
});

test('a training paused shows its features so far, and resumed goes on to its steps', async () => {
  await page.getByLabel('Steps', { exact: true }).fill('400');
  await page.getByRole('button', { name: 'Train features' }).click();
  await page.locator('#features-status').getByText(/^Step [1-9]\d* of 400/).waitFor();
  await page.locator('#features-pause').click();
  await page.locator('#features-status').getByText(/^Paused at step \d+ of 400: its features so far are below\./).waitFor();
  await page.locator('#features-list tbody tr').nth(9).waitFor(); // the features so far, listed
  await page.getByRole('button', { name: 'Resume features' }).click();
  await page.locator('#features-status').getByText(/^Step 400 of 400:/).waitFor({ timeout: 120000 });
  assert.equal(await page.locator('#features-pause').textContent(), 'Pause features');
  assert.deepEqual(errors, []);
});

test('a reload brings the autoencoder back with its run', async () => {
  const shown = await page.locator('#features-card-title').textContent();
  const measures = await page.locator('#features-measures').textContent();
  const curve = await page.locator('#features-losses').getAttribute('aria-label');
  assert.match(curve, /over 400 steps/);
  await page.locator('#features-status').getByText(/ Saved with the run\.$/).waitFor();
  await page.reload();
  await untilStatus(page, /^Ready|^Loaded|^Restored/);
  if (!await page.locator('#features').evaluate((d) => d.open)) await page.getByText('8. Features').click();
  await page.locator('#features-status').getByText(/^Step 400 of 400:/).waitFor({ timeout: 60000 });
  await page.locator('#features-list tbody tr').first().waitFor();
  assert.equal(await page.locator('#features-measures').textContent(), measures, 'the same measures');
  assert.equal(await page.locator('#features-losses').getAttribute('aria-label'), curve, 'the same loss curve, every step');
  assert.match(shown, /^Feature \d+$/);
  assert.deepEqual(errors, []);
});

/** Trains the form's autoencoder 40 steps, and reads the L0 it measures. */
async function trainedL0() {
  await page.getByLabel('Steps', { exact: true }).fill('40');
  await page.getByRole('button', { name: 'Train features' }).click();
  await page.locator('#features-status').getByText(/^Step 40 of 40:/).waitFor({ timeout: 60000 });
  return Number((await page.locator('#features-measures').textContent()).match(/L0([\d.]+)/)[1]);
}

test('a ReLU autoencoder trains with its L1 penalty in place of k', async () => {
  await form().getByLabel('Kind').selectOption('relu');
  assert.equal(await form().getByLabel('Active per token (k)').isVisible(), false);
  await form().getByLabel('L1 penalty').fill('0.3');
  const l0 = await trainedL0();
  assert.ok(l0 > 0, `L0 ${l0}`);
  await form().getByLabel('Kind').selectOption('top_k');
  assert.deepEqual(errors, []);
});

test('a JumpReLU autoencoder trains with its L0 penalty, and BatchTopK with k', async () => {
  await form().getByLabel('Kind').selectOption('jump_relu');
  assert.equal(await form().getByLabel('Active per token (k)').isVisible(), false);
  assert.equal(await form().getByLabel('L1 penalty').isVisible(), false);
  await form().getByLabel('L0 penalty').fill('0.01');
  const l0 = await trainedL0();
  assert.ok(l0 > 0, `L0 ${l0}`);
  await form().getByLabel('Kind').selectOption('batch_top_k');
  assert.equal(await form().getByLabel('Active per token (k)').isVisible(), true);
  assert.equal(await form().getByLabel('L0 penalty').isVisible(), false);
  await form().getByLabel('Kind').selectOption('top_k');
  assert.deepEqual(errors, []);
});

test('a transcoder stands in for an MLP: read from what it reads, measured against what it adds', async () => {
  await page.getByLabel('Read at').selectOption('transcoder:0');
  await page.getByLabel('Steps', { exact: true }).fill('40');
  await page.getByRole('button', { name: 'Train features' }).click();
  await page.locator('#features-status').getByText(/^Step 40 of 40:/).waitFor({ timeout: 60000 });
  const explained = Number((await page.locator('#features-measures').textContent()).match(/Variance explained([\d.]+)%/)[1]);
  assert.ok(explained > 0, `variance explained ${explained}%`);
  await page.locator('#features-list tbody tr').first().waitFor();
  await page.getByLabel('Read at').selectOption({ index: 0 });
  assert.deepEqual(errors, []);
});

test('while the model trains, or is about to, features are refused with the reason', async () => {
  // An autoencoder training when Resume is pressed, and Train features pressed at once after:
  // the model's training waits for the autoencoder's to pause, and a new one must not start then.
  await page.getByLabel('Steps', { exact: true }).fill('200');
  await page.getByRole('button', { name: 'Train features' }).click();
  await page.locator('#features-status').getByText(/^Step [1-9]\d* of 200/).waitFor({ timeout: 60000 });
  await page.getByLabel('Iterations', { exact: true }).fill('100000');
  // Both presses in one task of the page's, so Train features lands in that moment on any machine.
  await page.evaluate(() => {
    document.getElementById('resume').click();
    document.getElementById('features-train').click();
  });
  await page.locator('#features-error').getByText(/^Pause the model’s training first/).waitFor();
  await page.locator('#features-status').getByText(/^Paused at step \d+ of 200/).waitFor();
  await page.locator('#status').getByText(/^Training/).waitFor();
  // Then, once the model pauses, the autoencoder there was resumes and finishes.
  await page.locator('#pause').click();
  await page.locator('#status').getByText(/^Paused at step [\d,]+\./).waitFor();
  await page.getByRole('button', { name: 'Resume features' }).click();
  await page.locator('#features-status').getByText(/^Step 200 of 200:/).waitFor({ timeout: 120000 });
  assert.deepEqual(errors, []);
});

test('a reload after the model trained on brings the autoencoder back on the model it read', async () => {
  // The model trained past step 200 in the test before; the autoencoder still reads step 200.
  const paused = Number((await page.locator('#status').textContent()).match(/^Paused at step ([\d,]+)/)[1].replace(/,/g, ''));
  assert.ok(paused > 200, `paused at ${paused}`);
  await page.getByText(`step ${paused.toLocaleString('en-US')}`).first().waitFor(); // saved in the library
  await page.locator('#features-status').getByText(/Saved with the run\.$/).waitFor(); // and the autoencoder's last step with it
  await page.reload();
  await untilStatus(page, new RegExp(`^Restored run .* at step ${paused.toLocaleString('en-US')}\\.`));
  if (!await page.locator('#features').evaluate((d) => d.open)) await page.getByText('8. Features').click();
  await page.locator('#features-status').getByText(/reading the model at step 200\.$/).waitFor({ timeout: 60000 });
  await page.locator('#features-list tbody tr').first().waitFor();
  assert.deepEqual(errors, []);
});

test('with the features open, no accessibility rule is broken', async () => {
  assert.deepEqual(await axeViolations(page), []);
});

for (const [name, viewport, device] of [
  ['tablet', { width: 768, height: 1024 }, { hasTouch: true }],
  ['phone', { width: 390, height: 844 }, { hasTouch: true, isMobile: true }],
]) {
  test(`on a ${name}, the features fit the screen and a tap opens a card`, async () => {
    const small = await openPlayground(viewport, [], device);
    try {
      await trainFeatures(small.page, 100, 30, 'tap');
      const row = small.page.locator('#features-list tbody tr').nth(1);
      const feature = await row.locator('td').first().textContent();
      await row.tap();
      await small.page.locator('#features-card-title').getByText(`Feature ${feature}`, { exact: true }).waitFor();
      const overflow = await small.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, 'nothing wider than the screen');
      await small.page.locator('#features').screenshot({ path: `${SHOTS}61-features-${name}.png` });
      assert.deepEqual(small.errors, []);
    } finally {
      await small.close();
    }
  });
}
