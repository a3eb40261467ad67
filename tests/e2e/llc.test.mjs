// The learning coefficient view, in Chromium: on the induction preset trained a few hundred steps,
// estimate the whole model's LLC now at the calibrated defaults (its chains shared by the page's
// workers: the same estimate on one worker and on two), read each chain's trace; a step too big
// is said; every head's LLC as bars; an estimate under way gives way to another view's ask and to
// training, and runs once training stops; each head's LLC at the live records, on the heads view,
// shown record by record; desktop and phone sizes; axe-core finds nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, openPlayground, SHOTS, trainRepeatAndOpenView, untilStatus } from './session.mjs';

const STEPS = 300;
let session, page, errors;

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = session);
  await trainRepeatAndOpenView(page, STEPS, 'llc');
});
after(() => session?.close());

/** Presses Estimate and waits for the view's answer: its summary. */
async function estimate() {
  const summary = page.locator('#llc-summary');
  const before = await summary.textContent();
  await page.getByRole('button', { name: 'Estimate', exact: true }).click();
  await page.waitForFunction((old) => {
    const button = document.getElementById('llc-estimate');
    return !button.disabled && document.getElementById('llc-summary').textContent !== old;
  }, before, { timeout: 120000 });
  return summary.textContent();
}

test('the whole model\'s LLC now, the same on one worker and two, with each chain\'s trace', async () => {
  assert.equal(await page.locator('#llc-summary').textContent(), 'Press Estimate to measure the learning coefficient at the current weights.');
  assert.equal(await page.getByLabel('SGLD step ε').inputValue(), '0.0001', 'the calibrated step is picked');
  const byWorkers = {};
  for (const workers of [2, 1]) {
    await page.getByLabel('Workers').selectOption(String(workers));
    const said = await estimate();
    assert.match(said, new RegExp(`^Whole model: LLC [\\d.]+ ± [\\d.]+ at step ${STEPS}\\. MALA acceptance [\\d.]+ \\(devinterp aims near 0\\.9`));
    assert.match(said, /4 chains of 200 draws after 50 steps of burn-in, ε 0\.0001, γ 1,?000, nβ [\d.]+, batches of 8 rows\. This ε and γ are what devinterp's calibration picked/);
    const took = workers === 1 ? /The chains took [\d.]+ s on 1 worker\./ : /The chains took [\d.]+ s, shared by 2 workers\./;
    assert.match(said, took);
    byWorkers[workers] = said.match(/^Whole model: LLC ([\d.]+ ± [\d.]+)/)[1];
  }
  assert.equal(byWorkers[1], byWorkers[2], 'the chains are the same on any worker');
  assert.match(await page.locator('#llc-traces').getAttribute('aria-label'), /^The loss at each draw of 4 chains for Whole model, against [\d.]+ at the trained weights\.$/);
  assert.ok(await page.locator('#llc-parts').isHidden(), 'one part: no bars');
  await page.locator('[data-view="llc"]').screenshot({ path: `${SHOTS}47-llc-view.png` });
  assert.deepEqual(await axeViolations(page), []);
});

test('a step too big is said, and every head\'s LLC is drawn as bars', async () => {
  await page.getByLabel('SGLD step ε').selectOption('0.01');
  const said = await estimate();
  assert.match(said, /Whole model: (a chain's loss blew up|the chains left the trained solution|the chains' loss was still climbing)/);
  assert.doesNotMatch(said, /This ε and γ are what/, 'not the calibrated setting');
  await page.getByLabel('SGLD step ε').selectOption('0.0001');
  await page.locator('#llc-part').selectOption('heads');
  const heads = await estimate();
  assert.match(heads, new RegExp(`^8 parts at step ${STEPS}: highest L\\dH\\d [\\d.]+, lowest L\\dH\\d -?[\\d.]+\\.`));
  assert.ok(await page.locator('#llc-traces').isHidden(), 'several parts: no traces');
  assert.match(await page.locator('#llc-parts').getAttribute('aria-label'), /^8 parts at step \d+: highest/);
  await page.locator('[data-view="llc"]').screenshot({ path: `${SHOTS}47-llc-heads.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  const bars = page.locator('#llc-parts');
  await bars.scrollIntoViewIfNeeded();
  assert.ok((await bars.boundingBox()).width <= 390, 'the figure fits a phone');
  await page.locator('[data-view="llc"]').screenshot({ path: `${SHOTS}47-llc-phone.png` });
  assert.deepEqual(errors, []);
});

test('an estimate under way gives way to another view and to Resume, then runs once training stops', async () => {
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.getByLabel('Workers').selectOption('2');
  await page.locator('#llc-part').selectOption('heads');
  await page.getByRole('button', { name: 'Estimate', exact: true }).click();
  await page.getByRole('button', { name: 'Estimating…', exact: true }).waitFor();
  // Another view opened asks the views again while the chains run; then Train.
  await page.locator('#views > details[data-view="heads"] > summary').click();
  await page.getByLabel('Iterations', { exact: true }).fill(String(STEPS + 100));
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await untilStatus(page, new RegExp(`^Finished ${STEPS + 100} steps`), 240000);
  await page.locator('#llc-summary').getByText(new RegExp(`^8 parts at step ${STEPS + 100}:`)).waitFor({ timeout: 120000 });
  assert.equal(await page.locator('#llc-estimate').textContent(), 'Estimate');
  assert.deepEqual(errors, []);
});

test('each head\'s LLC at the live records, estimated once training stops, on the heads view', async () => {
  const status = page.locator('#heads-llc-status');
  // Every status the view shows on the way: the records still waiting, as each is done.
  await page.evaluate(() => {
    const shown = document.getElementById('heads-llc-status');
    globalThis.headsStatuses = [];
    new MutationObserver(() => globalThis.headsStatuses.push(shown.textContent)).observe(shown, { childList: true, characterData: true, subtree: true });
  });
  await page.locator('#heads-score').selectOption('llc');
  await status.getByText(/^Each head's chains move only its own weights/).waitFor({ timeout: 120000 });
  const said = await page.locator('#heads-view').getAttribute('aria-label');
  const [, records] = said.match(new RegExp(`^Each head's refined learning coefficient at (\\d+) records of the LLC, up to step ${STEPS + 100}; highest at the last: layer \\d head \\d \\(-?[\\d.]+\\)\\.`)) ?? [];
  assert.ok(Number(records) >= 2, said);
  const waits = (await page.evaluate(() => globalThis.headsStatuses)).map((s) => Number(s.match(/^(\d+) records? of the LLC wait/)?.[1])).filter((n) => n > 0);
  assert.ok(waits.some((n) => n < Number(records)), `each record shown as it is done: ${waits}`);
  await page.locator('[data-view="heads"]').screenshot({ path: `${SHOTS}47-llc-heads-over-time.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#heads-view').scrollIntoViewIfNeeded();
  assert.ok((await page.locator('#heads-view').boundingBox()).width <= 390, 'the figure fits a phone');
  await page.locator('[data-view="heads"]').screenshot({ path: `${SHOTS}47-llc-heads-over-time-phone.png` });
  await page.setViewportSize({ width: 1280, height: 1000 });
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(errors, []);
});
