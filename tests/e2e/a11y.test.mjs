// An accessibility audit (axe-core, every rule it runs by default) of the page in Chromium: at first
// visit, and after training with a sample streamed and every view inside the model open, in the
// desktop layout and in a phone's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, openPlayground, trainTinyAndLookInside } from './session.mjs';

let session, page, errors;

before(async () => {
  session = await openPlayground({ width: 1280, height: 900 });
  ({ page, errors } = session);
});
after(() => session?.close());


test('the first visit breaks no accessibility rule', async () => {
  assert.deepEqual(await axeViolations(page), []);
});

test('after training, with a sample and every inside view open, no rule is broken either', async () => {
  await trainTinyAndLookInside(page, 60);
  await page.getByRole('button', { name: 'Generate' }).click();
  await page.waitForFunction(() => document.getElementById('sample-output').textContent.trim().length > 0);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(errors, []);
});

test('at a phone\'s size, by touch, no rule is broken at first visit nor after training', async () => {
  const phone = await openPlayground({ width: 390, height: 844 }, [], { hasTouch: true, isMobile: true });
  try {
    assert.deepEqual(await axeViolations(phone.page), []);
    await trainTinyAndLookInside(phone.page, 40, 'tap');
    assert.deepEqual(await axeViolations(phone.page), []);
    assert.deepEqual(phone.errors, []);
  } finally {
    await phone.close();
  }
});
