// Every bundled lesson walked in Chromium from its first step to its last, doing what each step
// asks, and checking that each wait is met and that the page says so. How many seconds each wait
// takes depends on the machine: bench/lessons.mjs measures them against each step's `within`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, SHOTS } from './session.mjs';
import { LESSON_IDS, walkLesson } from './lesson-walk.mjs';

let session, page, errors;
const asked = []; // what the page asked: only "Start over?" when a step trains a new model

before(async () => {
  session = await openPlayground({ width: 1280, height: 900 });
  ({ page, errors } = session);
  page.on('dialog', (dialog) => { asked.push(dialog.message()); dialog.accept(); });
});
after(() => session?.close());

for (const id of LESSON_IDS) {
  test(`lesson ${id}: every step, each wait met and said`, async () => {
    const timings = [];
    await walkLesson(page, id, async ({ step, index, waits, seconds, runStep }) => {
      if (waits.length) assert.match(await page.locator('#lesson-wait').textContent(), /^Done/, `${id}, "${step.title}": the panel says so`);
      if (waits.some((w) => w.what === 'finished')) {
        const max = Number(await page.getByLabel('Iterations', { exact: true }).inputValue());
        assert.equal(runStep, max, `${id}, "${step.title}": the run finished its ${max} steps`);
      }
      if (waits.length) timings.push(`${step.title}: step ${runStep}, ${seconds} s`);
      if (index === 1) await page.screenshot({ path: `${SHOTS}60-lesson-${id}.png` });
    });
    assert.ok(await page.locator('#lesson').isHidden());
    assert.deepEqual(asked.filter((m) => m.startsWith('This lesson sets up')), [], 'a bundled lesson sets up what the page trains');
    console.log(`# ${id}: ${timings.join(', ') || 'no waits'}`);
    assert.deepEqual(errors, []);
  });
}
