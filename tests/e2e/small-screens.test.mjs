// A phone (390 × 844) and a tablet (768 × 1024), touch only, in Chromium: nothing is wider than the
// screen, with every section open, and a tap trains the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, trainTinyAndLookInside } from './session.mjs';

/** The elements that reach past the right edge of the screen, by tag, id and class. */
const tooWide = (page) => page.evaluate(() => {
  const edge = document.documentElement.clientWidth + 1;
  return [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > edge && el.getClientRects().length > 0)
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
      await page.locator('#train').scrollIntoViewIfNeeded();
      await session.shot(`22-${name}-trained`);
      assert.deepEqual(errors, []);
    } finally {
      await session.close();
    }
  });
}
