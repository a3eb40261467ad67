// A bundled lesson walked in the page from its first step to its last, doing what each step asks
// (pressing Train, Resume or Generate, setting a temperature), as lessons.test.mjs checks it and
// bench/lessons.mjs times it.
import { readFileSync } from 'node:fs';
import { parseLesson } from '../../web/lesson/parse.js';
import { untilStatus } from './session.mjs';

const LESSONS = new URL('../../assets/lessons/', import.meta.url);

/** The bundled lessons' ids, in menu order. */
export const LESSON_IDS = JSON.parse(readFileSync(new URL('index.json', LESSONS), 'utf8'));

/** A bundled lesson, parsed. */
export const readLesson = (id) => parseLesson(readFileSync(new URL(`${id}.md`, LESSONS), 'utf8'));

/** What a learner does at each step, by lesson and step title (steps not named only read). */
function actions(page) {
  const press = (name) => async () => {
    const button = page.getByRole('button', { name, exact: true });
    await page.waitForFunction((id) => !document.getElementById(id).disabled, await button.getAttribute('id'));
    await button.click();
  };
  const fill = (selector, value) => () => page.locator(selector).fill(value);
  const choose = (selector, value) => () => page.locator(selector).selectOption(value);
  const both = (...steps) => async () => { for (const step of steps) await step(); };
  return {
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
    stages: {
      'Train the induction preset': press('Train'), 'Which heads changed': choose('#heads-score', 'llc'),
      "Each head's LLC now": both(choose('#llc-part', 'heads'), press('Estimate')),
    },
    sampling: {
      'A model to sample from': press('Train'), 'The next-token distribution': fill('#prompt', 'ROMEO:'),
      Cold: both(fill('#sample-form [name=temperature]', '0.2'), press('Generate')),
      Hot: both(fill('#sample-form [name=temperature]', '2'), press('Generate')),
      Trimmed: both(fill('#sample-form [name=top_k]', '5'), press('Generate')),
    },
    'going-wrong': { 'A learning rate of 5': press('Train'), 'Too high, but not exploding': press('Train'), 'A rate that works': press('Train') },
    superposition: {
      'Dense features': both(fill('#toy-sparsity', '0'), press('Train the toy model')),
      'Sparse features': both(fill('#toy-sparsity', '0.9'), press('Train the toy model')),
      'The phase diagram': both(fill('#toy-phase-side', '6'), press('Draw the diagram')),
      'An autoencoder on the hidden layer': both(choose('#toy-sae-source', 'hidden'), fill('#toy-sae-k', '1'), fill('#toy-sae-expansion', '5'), press('Train the autoencoder')),
      'A second autoencoder': both(choose('#toy-sae-architecture', 'relu'), fill('#toy-sae-l1', '0.05'), press('Train the autoencoder')),
    },
    'trust-circuits': {
      'A model built by hand': press('Train'), 'Three ways to find it': press('Find the circuit now'),
      'Where to look': choose('#circuit-corruption', 'swap'), 'A backup head': press('Train'),
      'Edges that hide': both(choose('#circuit-corruption', 'symbol'), press('Find the circuit now')),
      'The heads behind an edge': both(press('Train transcoders'), fill('#graph-prompt', 'fjidbckafjidb'), press('Trace')),
    },
  };
}

/** The longest a wait may take before the walk calls it stuck: a guard against a hang, not a timing. */
const STUCK_S = 900;

/**
 * Walks lesson `id` in `page` (the last lesson's run paused first, as a learner would). For each
 * step, `seen({ step, index, waits, within, seconds, runStep })` is called once its waits are met:
 * the training seconds the panel counted and the run's step then. Throws, naming the step, on a
 * step with no action written for it, a line the page could not follow, or a wait never met.
 */
export async function walkLesson(page, id, seen = () => {}) {
  const lesson = readLesson(id);
  const todo = actions(page)[id];
  if (!todo) throw new Error(`what a learner does in ${id} is not written down`);
  if (await page.getByRole('button', { name: 'Pause' }).isEnabled()) {
    await page.getByRole('button', { name: 'Pause' }).click();
    await untilStatus(page, /^Paused/);
  }
  await page.getByRole('button', { name: 'Lessons' }).click();
  await page.getByRole('button', { name: lesson.title, exact: true }).click();
  for (const [index, step] of lesson.steps.entries()) {
    await page.locator('#lesson-where').getByText(`Step ${index + 1} of ${lesson.steps.length}`).waitFor();
    const title = await page.locator('#lesson-step-title').textContent();
    if (title !== step.title) throw new Error(`${id}: step ${index + 1} shows "${title}", the lesson says "${step.title}"`);
    const note = await page.locator('#lesson-note').textContent();
    if (note) throw new Error(`${id}, "${step.title}": ${note}`);
    await todo[step.title]?.();
    const waits = step.directives.filter((d) => d.name === 'wait');
    await page.waitForFunction(() => document.getElementById('lesson').dataset.met === 'true', null, { timeout: STUCK_S * 1000, polling: 100 })
      .catch(async (e) => { throw new Error(`${id}, "${step.title}": ${await page.locator('#lesson-wait').textContent()} (${e.message.split('\n')[0]})`); });
    const said = await page.locator('#lesson-wait').textContent();
    const runStep = Number((await page.locator('#stats').textContent()).match(/step ([\d,]+)/)?.[1].replace(/,/g, '') ?? 0);
    const within = Math.max(0, ...waits.map((w) => w.within ?? 0));
    await seen({ step, index, waits, within, seconds: Number(said.match(/after (\d+) s of training/)?.[1] ?? 0), runStep });
    await page.locator('#lesson-next').click();
  }
  await page.locator('#lesson-notice').getByText(`You finished “${lesson.title}”`).waitFor();
  return lesson;
}
