// The walk through the model in Chromium: one token followed through every stage forward and back
// with its numbers; the controls by mouse, by keyboard and by tap; it refreshes while training,
// and training with it open is bit for bit training with it closed; desktop,
// tablet and phone sizes, and no accessibility rule broken with it open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, openPlayground, saveCheckpoint, SHOTS, untilStatus } from './session.mjs';

let session, page, errors;

/** Trains the tiny preset for `steps` (a new run) and opens the walk once it shows the last step. */
async function trainAndWalk(p, steps, press = 'click') {
  await p.getByLabel('Preset').selectOption('tiny');
  await p.getByLabel('Iterations', { exact: true }).fill(String(steps));
  await p.getByRole('button', { name: 'Train', exact: true })[press]();
  await untilStatus(p, new RegExp(`^Finished ${steps} steps`), 120000);
  const walk = p.locator('#walk');
  if (!await walk.evaluate((d) => d.open)) await p.getByText('7. Walk through the model')[press]();
  await p.locator('#walk-status').getByText(new RegExp(`^At step ${steps}:`)).waitFor();
}

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = session);
  await trainAndWalk(page, 120);
});
after(() => session?.close());

test('the walk shows every stage forward and back, each named, shaped and labelled', async () => {
  const status = await page.locator('#walk-status').textContent();
  assert.match(status, /position 15 \(.+\), layer \d head \d/, 'the start of the held-out text, its last position');
  const titles = await page.locator('#walk-forward .stage-title').allTextContents();
  for (const stage of [/^Token embedding/, /^Position embedding/, /^Normalised before attention/, /^Queries, head/, /^Scores q·k/, /^Softmax: where head/, /^Weighted sum of values/, /^MLP up-projection/, /^Activation: which neurons fire/, /^Logits/]) {
    assert.ok(titles.some((t) => stage.test(t)), `${stage} in ${titles.join(' | ')}`);
  }
  const hooks = await page.locator('#walk-forward .stage-hook').allTextContents();
  assert.ok(hooks.includes('hook_embed') && hooks.some((h) => /^blocks\.\d\.attn\.hook_pattern$/.test(h)), hooks.join(' '));
  for (const canvas of await page.locator('#walk-forward canvas, #walk-backward canvas').all()) {
    assert.match(await canvas.getAttribute('aria-label'), /: (a strip of \d+ values|a \d+ × \d+ matrix) from [\u2212-]?[\d.e\u2212-]+ to [\u2212-]?[\d.e\u2212-]+/);
  }
  assert.match(await page.locator('#walk-draw-title').textContent(), /^The draw at temperature 0\.8 \(the sample panel's\): .+ drawn with probability [\d.]+%$/);
  const step = await page.locator('#walk-step').textContent();
  assert.match(step, /^Teaching .+ at position 15: loss −log p = [\d.]+ \(p = [\d.]+ at temperature 1\)\. AdamW at rate [\d.]+e[−-]\d for 15 weights; gradient norm [\d.]+: the loss there goes from [\d.]+ to [\d.]+ after the step/);
  if (/clipped/.test(step)) {
    const notes = await page.locator('#walk-backward .stage-notes').first().textContent();
    assert.match(notes, /^norm: [\d.e\u2212-]+ · norm once clipped, as the step used it: [\d.e\u2212-]+$/, 'each gradient says its norm both ways');
  }
  assert.ok(await page.locator('#walk-backward figure').count() >= 10);
  assert.equal(await page.locator('#walk-params tbody tr').count(), 15, 'every weight of the tiny preset');
  assert.deepEqual((await page.locator('#walk-params tbody tr').first().locator('td').allTextContents()).slice(0, 1), ['AdamW']);
  // The logits by TransformerLens's hook for them; a closed block names the hook of each row.
  const logits = page.locator('#walk-forward figure', { has: page.locator('.stage-title', { hasText: /^Logits/ }) });
  assert.equal(await logits.locator('.stage-hook').textContent(), 'unembed.hook_out');
  assert.ok(hooks.some((h) => /^blocks\.(\d)\.hook_attn_out, blocks\.\1\.hook_mlp_out, blocks\.\1\.hook_resid_post$/.test(h)), hooks.join(' | '));
  await page.locator('#walk').screenshot({ path: `${SHOTS}50-walk.png` });
  assert.deepEqual(errors, []);
});

test('a token pressed is followed, a value read by pointer and by keyboard, and a bad target explained', async () => {
  await page.getByRole('button', { name: /^Follow position 5:/ }).click();
  await page.locator('#walk-status').getByText(/position 5 /).waitFor();
  assert.equal(await page.getByRole('button', { name: /^Follow position 5:/ }).getAttribute('aria-pressed'), 'true');
  // By keyboard: the walk's refresh keeps the focus on the token pressed.
  await page.getByRole('button', { name: /^Follow position 6:/ }).focus();
  await page.keyboard.press('Enter');
  await page.locator('#walk-status').getByText(/position 6 /).waitFor();
  assert.match(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), /^Follow position 6:/);
  const scores = page.locator('#walk-forward figure', { has: page.locator('.stage-title', { hasText: /^Scores/ }) });
  const canvas = scores.locator('canvas');
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  assert.match(await scores.locator('.stage-readout').textContent(), /^row \d+ \(.+\), column \d+: ([\u2212-]?[\d.e\u2212-]+|masked, −∞ \(a later position\))$/);
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  assert.match(await scores.locator('.stage-readout').textContent(), /^row 0 \(.+\), column \d+: masked, −∞ \(a later position\)$/, 'above the diagonal: −∞, as TransformerLens holds it');
  const strip = page.locator('#walk-forward figure').first();
  await strip.scrollIntoViewIfNeeded();
  const box = await strip.locator('canvas').boundingBox();
  await page.mouse.move(box.x + 2, box.y + 2);
  assert.match(await strip.locator('.stage-readout').textContent(), /^index 0: [\u2212-]?[\d.e\u2212-]+$/, 'a pointer reads a value');
  // A head chosen with the layer left to the run's scores opens that head in the layer shown.
  const [, layer] = (await page.locator('#walk-status').textContent()).match(/layer (\d) head (\d)/);
  const head = layer === '1' ? '2' : '1';
  await page.getByLabel('Head', { exact: true }).selectOption({ label: head });
  await page.locator('#walk-status').getByText(new RegExp(`layer ${layer} head ${head}`)).waitFor();
  assert.equal(await page.getByLabel('Layer', { exact: true }).inputValue(), String(Number(layer) - 1), 'the layer it opened, said');
  await page.getByLabel('Layer', { exact: true }).selectOption({ label: '1' });
  await page.getByLabel('Head', { exact: true }).selectOption({ label: '2' });
  await page.locator('#walk-status').getByText(/layer 1 head 2/).waitFor();
  await page.getByLabel('Token to teach').fill('zz');
  await page.locator('#walk-error').getByText(/the target must be one token/).waitFor();
  await page.getByLabel('Token to teach').fill('');
  await page.locator('#walk-error').getByText(/^$/).waitFor({ state: 'attached' });
  assert.deepEqual(errors, []);
});

test('while training the walk refreshes at each evaluation, and the run is bit for bit the one without it', async () => {
  await page.getByLabel('Iterations', { exact: true }).fill('300');
  page.on('dialog', (d) => d.accept()); // each new run replaces the last
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.locator('#walk-status').getByText(/^At step (1[5-9]\d|2\d\d):/).waitFor({ timeout: 120000 });
  await untilStatus(page, /^Finished 300 steps/, 120000);
  const open = (await saveCheckpoint(page)).history;
  await page.getByText('7. Walk through the model').click(); // closed: the worker computes no walk
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStatus(page, /^Finished 300 steps/, 120000);
  assert.deepEqual((await saveCheckpoint(page)).history, open, 'the same losses and evaluations, bit for bit');
  assert.deepEqual(errors, []);
});

test('with the walk open, no accessibility rule is broken', async () => {
  await trainAndWalk(page, 60);
  assert.deepEqual(await axeViolations(page), []);
});

for (const [name, viewport, device] of [
  ['tablet', { width: 768, height: 1024 }, { hasTouch: true }],
  ['phone', { width: 390, height: 844 }, { hasTouch: true, isMobile: true }],
]) {
  test(`on a ${name}, the walk fits the screen and a tap follows a token and reads a value`, async () => {
    const small = await openPlayground(viewport, [], device);
    try {
      await trainAndWalk(small.page, 60, 'tap');
      await small.page.getByRole('button', { name: /^Follow position 3:/ }).tap();
      await small.page.locator('#walk-status').getByText(/position 3 /).waitFor();
      const figure = small.page.locator('#walk-forward figure').first();
      await figure.locator('canvas').scrollIntoViewIfNeeded(); // a tap lands only on the screen
      const box = await figure.locator('canvas').boundingBox();
      await small.page.touchscreen.tap(box.x + 4, box.y + 4);
      assert.match(await figure.locator('.stage-readout').textContent(), /^index 0: [\u2212-]?[\d.e\u2212-]+$/);
      const overflow = await small.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, 'nothing wider than the screen');
      await small.page.locator('#walk').screenshot({ path: `${SHOTS}51-walk-${name}.png` });
      assert.deepEqual(small.errors, []);
    } finally {
      await small.close();
    }
  });
}
