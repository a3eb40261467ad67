// The tasks in Chromium: each preset learns (held-out accuracy above chance) and its attention is
// drawn; bad task settings and typed problems get their messages; a task's run gives the same
// numbers with 1 and 2 workers, comes back after a reload and trains on exactly, saves and loads,
// and its settings travel in a link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPlayground, saveCheckpoint, SHOTS, untilStep, untilStatus } from './session.mjs';

let session, page, errors, shot;

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors, shot } = session);
  page.on('dialog', (d) => d.accept());
});
after(() => session?.close());

async function fill(fields) {
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(String(value));
}

/** The message shown beside the control labelled `label`, which must be marked invalid. */
async function problemBeside(label) {
  const field = page.getByLabel(label, { exact: true });
  await page.waitForFunction((el) => el.getAttribute('aria-invalid') === 'true', await field.elementHandle());
  return page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent();
}

/** The held-out accuracy the loss chart describes (its last evaluation), as a share. */
async function heldOutAccuracy() {
  const label = await page.locator('#loss-chart').getAttribute('aria-label');
  return Number(label.match(/and ([\d.]+)% held out/)[1]) / 100;
}

/** The checkpoint of the model now: its history and its file's path. */
async function saved() {
  const { metadata, history, path } = await saveCheckpoint(page);
  return { history, task: JSON.parse(metadata.task), path };
}

test('a task shows its own settings and what to watch for; settings that cannot work are named', async () => {
  await page.getByLabel('Corpus').selectOption('task:modular');
  assert.equal(await page.getByLabel('Preset').inputValue(), 'grokking', 'a task brings its preset');
  assert.equal(await page.getByLabel('Training text').isVisible(), false, 'a task needs no text');
  assert.equal(await page.getByLabel('Sequence length').isVisible(), false, 'modular addition reads p, not a length');
  assert.equal(await page.getByLabel('p', { exact: true }).inputValue(), '97');
  await page.locator('#task-watch').getByText(/^Grokking: every number 0 to 96 is one token/).waitFor();
  await page.locator('#task-summary').getByText('9,409 problems: 2,352 to train on, 7,057 held out.', { exact: false }).waitFor();
  const train = page.getByRole('button', { name: 'Train', exact: true });
  await fill({ p: 2, 'Train fraction': 0.9 });
  assert.match(await problemBeside('Train fraction'), /this task has 4 problems, and a train fraction of 0\.9 leaves none held out/);
  assert.equal(await train.isDisabled(), true);
  await fill({ p: 97, 'Train fraction': 1 });
  assert.match(await problemBeside('Train fraction'), /Train fraction must be between 0 and 1/);
  await page.getByLabel('Corpus').selectOption('task:reverse');
  assert.equal(await page.getByLabel('Preset').inputValue(), 'reverse');
  await fill({ 'Sequence length': 13 });
  assert.match(await problemBeside('Block size'), /Block size must hold a whole problem of the reverse task: 27 tokens, not 25/);
  assert.equal(await train.isDisabled(), true);
  await shot('20-task-problems');
  await fill({ 'Sequence length': 1 });
  assert.match(await problemBeside('Sequence length'), /at length 1 a problem is a single letter, and no held-out letter ever appears in training/);
  // A setting that keeps the phenomenon from forming says so before Train, and where more steps
  // (or another optimiser) form it, a button sets them.
  await page.getByLabel('Corpus').selectOption('task:brackets');
  const outlook = page.getByRole('status', { name: 'What these settings do to the phenomenon' });
  assert.equal(await outlook.isVisible(), false, 'the preset forms its phenomenon');
  await fill({ 'Sequence length': 32, 'Block size': 65 });
  await outlook.getByText(/^At 32 brackets the preset's 2,000 steps are too few/).waitFor();
  await outlook.scrollIntoViewIfNeeded();
  await shot('20b-task-outlook');
  await outlook.getByRole('button', { name: 'Train for 10,000 steps' }).click();
  assert.equal(await page.getByLabel('Iterations', { exact: true }).inputValue(), '10000');
  await page.waitForFunction(() => document.querySelectorAll('#task-outlook button').length === 0);
  assert.equal(await train.isDisabled(), false);
  // Where another optimiser forms it, a button sets that one.
  await page.getByLabel('Corpus').selectOption('task:repeat');
  await fill({ 'Sequence length': 9 });
  await outlook.getByText(/^At a sequence length of 9 most copies are short enough/).waitFor();
  await outlook.getByRole('button', { name: 'Train with Muon' }).click();
  assert.equal(await page.getByLabel('Optimizer').inputValue(), 'muon');
  await page.waitForFunction(() => document.querySelectorAll('#task-outlook button').length === 0);
  await page.getByLabel('Preset').selectOption('reverse');
  assert.equal(await page.locator('.field-error').count(), 0);
  assert.equal(await train.isDisabled(), false);
});

// Each preset trains long enough to beat chance by far: a few hundred steps, seconds in the page.
const RUNS = [
  { task: 'repeat', iterations: 500, above: 0.5 }, // the induction head forms near step 300
  { task: 'reverse', iterations: 120, above: 0.5 },
  { task: 'sort', iterations: 600, above: 0.2 },
  { task: 'addition', iterations: 1000, above: 0.05 }, // chance is 1 in 10,000
  { task: 'brackets', iterations: 600, above: 0.2 },
  { task: 'parity', iterations: 200, above: 0.5 }, // chance is 1 in 4,096
  { task: 'modular', iterations: 1200, above: 0.5 }, // grokked near step 900 (the typed problems below use it)
];

test('each task preset learns: held-out accuracy rises above chance, and its attention is drawn', async () => {
  for (const { task, iterations, above } of RUNS) {
    await page.getByLabel('Corpus').selectOption(`task:${task}`);
    await fill({ Iterations: iterations });
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await untilStatus(page, `Finished ${iterations.toLocaleString('en-US')} steps.`, 120000);
    const accuracy = await heldOutAccuracy();
    assert.ok(accuracy > above, `${task}: ${accuracy} held out after ${iterations} steps (${await page.locator('#loss-chart').getAttribute('aria-label')})`);
    const solutions = page.getByRole('list', { name: 'Held-out problems' }).getByRole('listitem');
    await page.waitForFunction(() => document.querySelectorAll('#solutions li').length === 8);
    assert.match(await solutions.first().textContent(), /✓ right|✗ wrong, the answer is/);
    assert.ok(await page.locator('#attention-grid canvas').count() > 0, `${task}: the heads are drawn`);
    if (task === 'repeat') {
      const chart = await page.locator('#loss-chart').getAttribute('aria-label');
      assert.match(chart, /induction head L\d H\d at step \d+/);
      // The live learning coefficient: always recorded at the last evaluation, on its own axis.
      assert.match(chart, new RegExp(`learning coefficient \\(LLC\\) -?\\d+\\.\\d\\d at step ${iterations}`));
      await page.locator('#loss-chart').screenshot({ path: `${SHOTS}21-loss-chart-llc.png` });
      // The views inside read a held-out problem; a RoPE model has no position table to draw.
      await page.locator('#inside > summary').click();
      await page.locator('#inside-status').getByText(`At step ${iterations}`, { exact: false }).waitFor();
      assert.match(await page.locator('#positions-note').textContent(), /no position-embedding table/);
      assert.equal(await page.locator('#positions-view').isVisible(), false, 'the sentence and nothing else');
      assert.match(await page.locator('#heads-view').getAttribute('aria-label'), /induction/i);
      await page.locator('#inside > summary').click();
    }
    await page.locator('#attention-title').scrollIntoViewIfNeeded();
    await page.locator('section', { has: page.locator('#attention-title') }).screenshot({ path: `${SHOTS}21-attention-${task}.png` });
    await shot(`21-task-${task}`);
  }
  assert.deepEqual(errors, []);
});

test('a typed problem is answered and marked; one the task cannot read is explained', async () => {
  // The model now is the last one above: modular addition.
  const solve = async (problem) => {
    await page.getByLabel('Problem', { exact: true }).fill(problem);
    await page.getByRole('button', { name: 'Solve' }).click();
  };
  await solve('3+4');
  await page.locator('#typed-solutions li').first().getByText(/^3\+4=/).waitFor();
  assert.match(await page.locator('#typed-solutions li').first().textContent(), /(✓ right|✗ wrong, the answer is 7) \((a training problem|held out)\)/);
  await solve('3-4');
  await page.locator('#solve-error').getByText("'-' is not a digit: this task's symbols are the digits, + and =").waitFor();
  await solve('300+4');
  await page.locator('#solve-error').getByText('300 is not below p = 97: this task\'s numbers are 0 to 96').waitFor();
  await solve('3+');
  await page.locator('#solve-error').getByText(/type a sum as two numbers joined by \+/).waitFor();
  assert.equal(await page.locator('#typed-solutions li').count(), 1, 'nothing is added for a problem that cannot be read');
});

test('a task run: 1 and 2 workers bit for bit; a reload restores it and Resume goes on exactly', async () => {
  await page.getByLabel('Corpus').selectOption('task:reverse');
  await fill({ Iterations: 60, 'Warmup steps': 5 });
  const workers = (n) => page.getByLabel('Workers').selectOption(String(n));
  const runWith = async (n) => {
    await workers(n);
    await page.getByRole('button', { name: 'Train', exact: true }).click();
    await untilStatus(page, 'Finished 60 steps.');
    return (await saved()).history;
  };
  const one = await runWith(1);
  assert.equal(one.losses.length, 60);
  assert.ok(one.evals.every((e) => typeof e.val_accuracy === 'number' && typeof e.train_accuracy === 'number'));
  assert.deepEqual(await runWith(2), one, 'losses and accuracies, bit for bit');

  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStep(page, 25);
  await page.getByRole('button', { name: 'Pause' }).click();
  await untilStatus(page, /^Paused at step/);
  await page.reload();
  await untilStatus(page, /^Restored run 'reverse-\d+' at step \d+\. Resume to keep training, or try it on problems\./);
  assert.equal(await page.getByLabel('Corpus').inputValue(), 'task:reverse');
  assert.equal(await page.getByLabel('Sequence length').inputValue(), '12');
  assert.equal(await page.getByLabel('Problem', { exact: true }).isVisible(), true, 'the problems view, not the text sampler');
  await page.getByRole('button', { name: 'Resume' }).click();
  await untilStatus(page, 'Finished 60 steps.');
  assert.deepEqual((await saved()).history, one, 'after the reload, the same as the unbroken run');
  assert.deepEqual(errors, []);
});

test('a task run saves and loads as a file, whatever the corpus chosen', async () => {
  const { path, task } = await saved();
  assert.deepEqual(task, { name: 'reverse', length: 12, symbols: 26, train_fraction: 0.9 }, "the task's own settings only");
  await page.getByRole('button', { name: 'Reset' }).click();
  await page.getByLabel('Corpus').selectOption('names');
  await page.locator('#load').setInputFiles(path);
  await untilStatus(page, /^Loaded a model at step 60\./);
  assert.equal(await page.getByLabel('Corpus').inputValue(), 'task:reverse', 'the task comes with the model');
  await page.waitForFunction(() => document.querySelectorAll('#solutions li').length === 8);
  assert.match(await page.getByLabel('Text', { exact: true }).inputValue(), /^[a-z]{12}>[a-z]{12}$/, 'attention on a held-out problem');
  await page.getByLabel('Problem', { exact: true }).fill('abcdefghijklm');
  await page.getByRole('button', { name: 'Solve' }).click();
  await page.locator('#solve-error').getByText("this problem and its answer take 27 tokens, more than the model's block size (25)").waitFor();
});

test("a link carries a task's settings, and opens them", async () => {
  await page.getByLabel('Corpus').selectOption('task:addition');
  await fill({ Digits: 2 });
  await page.getByLabel('Digits').dispatchEvent('input');
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#preset=addition&corpus=task%3Aaddition&.*digits=2/);
  assert.doesNotMatch(link, /length=|symbols=/, "settings addition does not read stay out");
  const other = await session.newPage();
  await other.goto(link);
  await untilStatus(other, /^Ready/);
  assert.equal(await other.getByLabel('Corpus').inputValue(), 'task:addition');
  assert.equal(await other.getByLabel('Digits').inputValue(), '2');
  assert.equal(await other.getByLabel('Preset').inputValue(), 'addition');
  await other.locator('#task-summary').getByText('10,000 problems', { exact: false }).waitFor();
  await other.close();
});
