// A phone (390 × 844) and a tablet (768 × 1024), touch only, in Chromium: nothing is wider than the
// screen, with every section open, a tap trains the model, and every hover readout shows on a tap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, trainTinyAndLookInside } from './session.mjs';

/**
 * The elements that reach past the right edge of the screen, by tag, id and class. What a
 * scrolling region holds (a wide table) scrolls within it; the region itself must fit.
 */
const tooWide = (page) => page.evaluate(() => {
  const edge = document.documentElement.clientWidth + 1;
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const inScroller = (el) => { for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) if (scrolls(up)) return true; return false; };
  return [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > edge && el.getClientRects().length > 0 && !inScroller(el))
    .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
});

for (const [name, width, height] of [['phone', 390, 844], ['tablet', 768, 1024]]) {
  test(`${name} (${width} × ${height}): nothing wider than the screen, and a tap trains`, async () => {
    const session = await openPlayground({ width, height }, [], { hasTouch: true, isMobile: true });
    const { page, errors } = session;
    try {
      assert.deepEqual(await tooWide(page), []);
      await trainTinyAndLookInside(page, 40, 'tap');
      assert.deepEqual(await tooWide(page), [], 'after training, with the views inside open');
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width);
      // Every hover readout shows on a tap too: the loss chart's, the attention weights', a token's guesses.
      await page.locator('#loss-chart').tap({ position: { x: width / 3, y: 100 } });
      assert.match(await page.locator('#loss-tooltip').textContent(), /^step \d+: train /);
      assert.ok(await page.locator('#loss-tooltip').isVisible(), 'the loss readout stays shown after the tap');
      await page.getByRole('region', { name: 'Attention' }).getByRole('button', { name: 'Layer 1, head 1: enlarge' }).tap();
      await page.locator('#attention-large').tap({ position: { x: 200, y: 300 } });
      assert.match(await page.locator('#attention-large-readout').textContent(), /query .* → key .*: (\d\.\d{3}|masked)/);
      assert.deepEqual(await tooWide(page), [], 'with a head enlarged');
      await session.shot(`22-${name}-attention-tapped`);
      await page.getByRole('button', { name: 'Close' }).tap();
      await page.locator('#surprise-text [role=img]').nth(3).tap();
      assert.match(await page.locator('#inside-tooltip').textContent(), /the model guessed/);
      assert.ok(await page.locator('#inside-tooltip').isVisible(), 'the guesses stay shown after the tap');
      await page.locator('#train').scrollIntoViewIfNeeded();
      await session.shot(`22-${name}-trained`);
      assert.deepEqual(errors, []);
    } finally {
      await session.close();
    }
  });
}
