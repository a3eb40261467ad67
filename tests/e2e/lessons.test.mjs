// Every bundled lesson walked in Chromium from its first step to its last, doing what each step
// asks (pressing Train, Resume or Generate, setting a temperature), and checking that each wait is
// met within the time the lesson states, counted in training seconds on this machine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseLesson } from '../../web/lesson/parse.js';
import { openPlayground, SHOTS, untilStatus } from './session.mjs';

const LESSONS = new URL('../../assets/lessons/', import.meta.url);
const ids = JSON.parse(readFileSync(new URL('index.json', LESSONS), 'utf8'));
let session, page, errors;

const press = (name) => async () => {
  const button = page.getByRole('button', { name, exact: true });
  await page.waitForFunction((id) => !document.getElementById(id).disabled, await button.getAttribute('id'));
  await button.click();
};
const fill = (selector, value) => () => page.locator(selector).fill(value);
const both = (...actions) => async () => { for (const action of actions) await action(); };

/** What a learner does at each step, by lesson and step title (steps not named only read). */
const ACTIONS = {
  'first-model': {
    'Knowing nothing': press('Train'), 'Common letters': press('Generate'),
    'Pairs of letters': both(press('Resume'), press('Generate')), Names: both(press('Resume'), press('Generate')),
  },
  attention: {
    'A model to look inside': press('Train'),
    'Walk through the model': () => page.getByRole('button', { name: /^Follow position 3:/ }).click(),
  },
  tokenization: { 'One token per character': press('Train'), 'Byte pairs': press('Train') },
  induction: { 'A task that needs it': press('Train') },
  grokking: { 'The task': press('Train') },
  sampling: {
    'A model to sample from': press('Train'), 'The next-token distribution': fill('#prompt', 'ROMEO:'),
    Cold: both(fill('#sample-form [name=temperature]', '0.2'), press('Generate')),
    Hot: both(fill('#sample-form [name=temperature]', '2'), press('Generate')),
    Trimmed: both(fill('#sample-form [name=top_k]', '5'), press('Generate')),
  },
  'going-wrong': { 'A learning rate of 5': press('Train'), 'Too high, but not exploding': press('Train'), 'A rate that works': press('Train') },
};

before(async () => {
  session = await openPlayground({ width: 1280, height: 900 });
  ({ page, errors } = session);
  page.on('dialog', (dialog) => dialog.accept()); // "Start over?" when a step trains a new model
});
after(() => session?.close());

for (const id of ids) {
  test(`lesson ${id}: every step, each wait met within its stated time`, async () => {
    const lesson = parseLesson(readFileSync(new URL(`${id}.md`, LESSONS), 'utf8'));
    assert.ok(ACTIONS[id], `what a learner does in ${id}`);
    if (await page.getByRole('button', { name: 'Pause' }).isEnabled()) { // the last lesson's run, as a learner would
      await press('Pause')();
      await untilStatus(page, /^Paused/);
    }
    await page.getByRole('button', { name: 'Lessons' }).click();
    await page.getByRole('button', { name: lesson.title, exact: true }).click();
    const timings = [];
    for (const [i, step] of lesson.steps.entries()) {
      await page.locator('#lesson-where').getByText(`Step ${i + 1} of ${lesson.steps.length}`).waitFor();
      assert.equal(await page.locator('#lesson-step-title').textContent(), step.title);
      assert.equal(await page.locator('#lesson-note').textContent(), '', `${id}, "${step.title}": nothing it names is missing`);
      await ACTIONS[id][step.title]?.();
      const waits = step.directives.filter((d) => d.name === 'wait');
      const within = Math.max(0, ...waits.map((w) => w.within ?? 0));
      await page.waitForFunction(() => document.getElementById('lesson').dataset.met === 'true', null, { timeout: (within + 60) * 1000, polling: 100 })
        .catch(async (e) => { throw new Error(`${id}, "${step.title}": ${await page.locator('#lesson-wait').textContent()} (${e.message.split('\n')[0]})`); });
      const said = await page.locator('#lesson-wait').textContent();
      const seconds = Number(said.match(/after (\d+) s of training/)?.[1] ?? 0);
      if (waits.length) timings.push(`${step.title}: ${seconds} s`);
      if (within) assert.ok(seconds <= within, `${id}, "${step.title}": met after ${seconds} s of training, the lesson says within ${within} s`);
      if (i === 1) await page.screenshot({ path: `${SHOTS}60-lesson-${id}.png` });
      await page.locator('#lesson-next').click();
    }
    await page.locator('#lesson-notice').getByText(`You finished “${lesson.title}”`).waitFor();
    assert.ok(await page.locator('#lesson').isHidden());
    console.log(`# ${id}: ${timings.join(', ') || 'no waits'}`);
    assert.deepEqual(errors, []);
  });
}
