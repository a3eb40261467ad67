// The views inside the model in Chromium: after a few hundred steps of the tiny preset on first
// names, every view is drawn and described, the time-lapse replays, and tokens show their guesses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, SHOTS, untilStatus } from './session.mjs';

let session, page, errors;

before(async () => {
  session = await openPlayground({ width: 1280, height: 900 });
  ({ page, errors } = session);
  await page.getByLabel('Preset').selectOption('tiny');
  await page.getByLabel('Iterations').fill('300');
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 300 steps/, 120000);
});
after(() => session?.close());

/** How many colours a canvas shows: a blank one shows one or two. */
const colours = (canvas) => canvas.evaluate((c) => {
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  for (let i = 0; i < data.length; i += 16) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
  return seen.size;
});

test('opening the section draws every view, each described', async () => {
  await page.getByText('6. Inside the model').click();
  await page.locator('#inside-status').getByText(/^At step 300/).waitFor();
  for (const id of ['heads-view', 'embeddings-view', 'positions-view', 'residual-view', 'mlp-view', 'temperature-view', 'position-loss-view']) {
    const canvas = page.locator(`#${id}`);
    assert.ok(await colours(canvas) > 5, `${id} looks blank`);
    const label = await canvas.getAttribute('aria-label');
    assert.doesNotMatch(label, /none yet/, `${id}: ${label}`);
    assert.equal(await canvas.getAttribute('role'), 'img');
  }
  assert.match(await page.locator('#heads-view').getAttribute('aria-label'), /Head scores at 21 evaluations, step 300/);
  assert.match(await page.locator('#heads-view').getAttribute('aria-label'), /most focused head layer \d head \d \(entropy \d\.\d\d nats\)/);
  await page.getByLabel('Show').selectOption('entropy');
  assert.ok(await colours(page.locator('#heads-view')) > 5, 'the entropy chart looks blank');
  assert.equal(await page.locator('#lens-view tr').count(), 3, 'embeddings and two layers');
  assert.match(await page.locator('#lens-view').textContent(), /layer 2 \(output\).*%/);
  await page.locator('#inside').screenshot({ path: `${SHOTS}8-inside.png` });
  assert.deepEqual(errors, []);
});

test('the time-lapse replays every evaluation', async () => {
  const slider = page.getByLabel('Evaluation to replay');
  const snapshots = Number(await slider.getAttribute('max')) + 1;
  assert.ok(snapshots >= 5, `${snapshots} snapshots`);
  const heads = page.locator('#timelapse-grid canvas');
  assert.equal(await heads.count(), 8);
  const seen = new Set();
  for (let i = 0; i < snapshots; i += Math.max(1, Math.floor(snapshots / 6))) {
    await slider.fill(String(i));
    const shown = await page.locator('#timelapse-step').textContent();
    assert.match(shown, new RegExp(`\\(${i + 1} of ${snapshots}\\)`));
    seen.add(await heads.first().evaluate((c) => c.toDataURL()));
  }
  assert.ok(seen.size >= 5, `only ${seen.size} distinct patterns while replaying`);
  await page.locator('#timelapse-grid').screenshot({ path: `${SHOTS}9-timelapse.png` });
});

test('hovering a token shows the model\'s guesses there', async () => {
  const token = page.locator('#surprise-text span').nth(3);
  await token.hover();
  const tooltip = page.locator('#inside-tooltip');
  await tooltip.waitFor();
  assert.match(await tooltip.textContent(), /^loss \d+\.\d\d; the model guessed (“.+” \d+\.\d%, ){4}“.+” \d+\.\d%$/);
  assert.match(await token.getAttribute('aria-label'), /loss \d/);
  await page.locator('#surprise-text').screenshot({ path: `${SHOTS}10-surprise.png` });
  // A probe of one's own: the views follow it.
  await page.getByLabel('Probe text').fill('emma\nolivia\n');
  await page.waitForFunction(() => document.getElementById('surprise-text').textContent === 'emma\nolivia\n');
  assert.deepEqual(errors, []);
});
