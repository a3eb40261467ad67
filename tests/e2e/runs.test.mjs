// Runs are never lost, in Chromium: a reload restores the run and it trains on exactly; any
// checkpoint opens and samples whatever the text; the recipe changes while paused; saved runs
// are listed and compared; a full quota or a stuck storage is reported while training goes on; a link
// shares a setup.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openPlayground, saveCheckpoint, SHOTS, stepShown as stepOf, untilStep, untilStatus } from './session.mjs';

let session, page, errors, shot;
/** How the next dialog is answered: accepted (with `text` for a prompt), or dismissed. */
let answer = { accept: true };

before(async () => {
  session = await openPlayground();
  ({ page, errors, shot } = session);
  page.on('dialog', (d) => {
    const { accept, text } = answer;
    answer = { accept: true };
    return accept ? d.accept(text) : d.dismiss();
  });
});
after(() => session?.close());

const stepShown = () => stepOf(page);

async function fill(fields) {
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(String(value));
}

/** The per-step losses of the model now, from a checkpoint saved of it. */
async function savedLosses() {
  const { history, path } = await saveCheckpoint(page);
  return { losses: history.losses, path };
}

const RECIPE = { Iterations: 300, 'Eval every': 50, 'Warmup steps': 10 };

test('a reload restores the run, and Resume goes on exactly as if nothing happened', async () => {
  await page.getByLabel('Preset').selectOption('tiny');
  await fill(RECIPE);
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 300 steps/, 60000);
  const unbroken = (await savedLosses()).losses;

  await page.getByRole('button', { name: 'Train' }).click(); // the same settings again, a new run
  await untilStep(page, 61);
  await page.getByRole('button', { name: 'Pause' }).click();
  await untilStatus(page, /^Paused at step/);
  const pausedAt = await stepShown();
  await page.locator('#runs li', { hasText: `step ${pausedAt}` }).waitFor(); // saved on pause

  await page.reload();
  await untilStatus(page, `Restored run 'names-tiny-2' at step ${pausedAt}.`);
  await shot('11-restored');
  assert.match(await page.locator('#loss-chart').getAttribute('aria-label'), new RegExp(`step ${pausedAt}, train loss`));
  assert.equal(await page.getByLabel('Iterations').inputValue(), '300');
  assert.equal(await page.getByLabel('BPE vocabulary').inputValue(), '512', 'a character run shows the default');
  assert.equal(await page.getByRole('link', { name: /Moby Word Lists/ }).count(), 1, "the corpus's source is a link");
  await page.getByRole('button', { name: 'Resume' }).click();
  await untilStatus(page, /^Finished 300 steps/, 60000);
  assert.deepEqual((await savedLosses()).losses, unbroken, 'the losses after the reload equal the unbroken run, bit for bit');
  assert.deepEqual(errors, []);
});

test('a checkpoint opens with any text in the box, samples, and trains once the text fits', async () => {
  const { path } = await savedLosses();
  await page.getByLabel('Corpus').selectOption('shakespeare');
  await page.getByText(/characters · vocabulary of 78 distinct/).waitFor();
  await page.getByLabel('Load checkpoint').setInputFiles(path);
  await untilStatus(page, /^Loaded a model at step 300\. Sample from it, or fit the text/);
  const notice = page.locator('#text-problem');
  assert.match(await notice.textContent(), /cannot train on the text in the box: it has no token for \d+ of its characters: “␣” \(U\+0020\), “!” \(U\+0021\)/);
  assert.equal(await page.getByRole('button', { name: 'Resume' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Generate' }).click();
  await page.getByRole('button', { name: 'Generate' }).and(page.locator(':enabled')).waitFor();
  assert.ok((await page.getByLabel('Generated text').textContent()).length > 50, 'it samples');
  await shot('12-checkpoint-misfit');
  await page.getByRole('button', { name: 'Drop them from the text' }).click();
  await notice.waitFor({ state: 'hidden' });
  assert.doesNotMatch(await page.getByLabel('Training text').inputValue(), /[!A-Z]/);
  await page.getByLabel('Iterations').fill('320');
  await page.getByRole('button', { name: 'Resume' }).click();
  await untilStatus(page, /^Finished 320 steps/, 60000);
});

test('the learning rate changes while paused; the architecture asks for a new model', async () => {
  await page.getByLabel('Corpus').selectOption('names');
  await page.getByLabel('Preset').selectOption('tiny');
  await fill({ ...RECIPE, Iterations: 2000 });
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStep(page, 41);
  await page.getByRole('button', { name: 'Pause' }).click();
  await untilStatus(page, /^Paused at step/);
  const pausedAt = await stepShown();
  await fill({ 'Learning rate': 0.0005, 'Min learning rate': 0.00005 });
  await page.getByRole('button', { name: 'Resume' }).click();
  await untilStep(page, pausedAt + 1); // a step trained since, on a busy machine too
  // Shown with a minus sign (U+2212), which a line never breaks at.
  const lr = Number((await page.locator('#stats').textContent()).match(/lr ([\d.e+\u2212-]+)/)[1].replace('\u2212', '-'));
  assert.ok(lr <= 0.0005 && lr > 0.0001, `the new rate is in use: ${lr}`);
  await page.getByRole('button', { name: 'Pause' }).click();
  await untilStatus(page, /^Paused at step/);
  const steps = await stepShown();
  answer = { accept: false }; // "start a new model?" — no
  await fill({ Layers: 3 });
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.locator('.field-error', { hasText: 'changing Layers needs a new model' }).waitFor();
  assert.equal(await stepShown(), steps, 'the model is untouched');
  await page.getByLabel('Layers').fill('2');
});

test('saved runs are listed, compared on the chart, renamed and deleted', async () => {
  const runs = page.locator('#runs li');
  assert.ok(await runs.count() >= 3, `${await runs.count()} runs listed`);
  await page.getByLabel('Compare names-tiny on the loss chart', { exact: true }).check();
  await page.getByLabel('Compare names-tiny-2 on the loss chart', { exact: true }).check();
  await page.waitForFunction(() => /compared with .*names-tiny \(.*names-tiny-2 \(|compared with .*names-tiny-2 \(.*names-tiny \(/.test(document.getElementById('loss-chart').getAttribute('aria-label')));
  assert.match(await page.locator('#runs-usage').textContent(), /Storage used: .* of .*\. The browser (keeps them|did not promise to keep them)/);
  await shot('13-compare');
  answer = { accept: true, text: 'shakespeare-fit' };
  await page.getByRole('button', { name: 'Rename names-tiny-2', exact: true }).click();
  await page.locator('#runs li', { hasText: 'shakespeare-fit' }).waitFor();
  const before = await runs.count();
  await page.getByRole('button', { name: 'Delete shakespeare-fit', exact: true }).click();
  await page.waitForFunction((n) => document.querySelectorAll('#runs li').length === n - 1, before);
  assert.deepEqual(errors, []);
});

/** `file` (a checkpoint) with its header's metadata changed by `edit(metadata)`. */
function withMetadata(file, edit) {
  const length = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + length).toString('utf8'));
  edit(header.__metadata__);
  const json = JSON.stringify(header);
  const padded = Buffer.from(json.padEnd(Math.ceil(json.length / 8) * 8)); // the header stays 8-aligned
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(padded.length));
  return Buffer.concat([size, padded, file.subarray(8 + length)]);
}

test('compared runs list the settings that differ, and compare across training time', async () => {
  await page.getByLabel('Preset').selectOption('tiny');
  await fill({ Iterations: 30, 'Warmup steps': 5 });
  await page.getByLabel('Optimizer').selectOption('muon');
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 30 steps/);
  await page.getByLabel('Optimizer').selectOption('adamw');
  await fill({ 'Learning rate': 0.004 });
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 30 steps/);
  // The run before this one (Muon's), compared with the one training now, and with nothing else.
  // By name: each uncheck redraws the list, so a position among the checked boxes moves under it.
  const checked = await page.locator('#runs input[type=checkbox]:checked').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('aria-label')));
  for (const name of checked) await page.getByLabel(name, { exact: true }).uncheck();
  const muonRun = page.locator('#runs li:not(.current)').first();
  await muonRun.locator('input[type=checkbox]').check();
  const table = page.getByRole('table', { name: 'What differs between the runs on the chart' });
  await table.waitFor();
  const rows = await table.locator('tbody tr').allTextContents();
  assert.ok(rows.includes('Optimizeradamwmuon'), rows.join(' | '));
  assert.ok(rows.includes('Learning rate0.0040.003'), rows.join(' | '));
  // Muon's own settings belong to the Muon run alone: the AdamW run has none (—).
  for (const row of ['Muon learning rate—0.02', 'Muon momentum—0.95', 'Newton–Schulz coefficients—jordan', 'Newton–Schulz steps—5']) {
    assert.ok(rows.includes(row), `${row} in ${rows.join(' | ')}`);
  }
  assert.equal(rows.length, 6, `only what differs: ${rows.join(' | ')}`);
  await page.getByLabel('Chart across').selectOption('time');
  await page.waitForFunction(() => /across training time/.test(document.getElementById('loss-chart').getAttribute('aria-label')));
  await shot('13b-compare-settings');
  await page.locator('#loss-chart').scrollIntoViewIfNeeded();
  await shot('13c-compare-across-time');
  await page.getByLabel('Chart across').selectOption('steps');
  await muonRun.locator('input[type=checkbox]').uncheck();
  assert.deepEqual(errors, []);
});

test('a run 400,000 steps long opens, draws its losses and trains on', async () => {
  // A short run's checkpoint, made a long one's: its step count and a loss for every step.
  await page.getByLabel('Corpus').selectOption('names');
  await page.getByLabel('Preset').selectOption('tiny');
  await fill({ Iterations: 20, 'Eval every': 10, 'Warmup steps': 2 });
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 20 steps/, 60000);
  const [long, evaluations] = [400000, 20000];
  const buffer = withMetadata(readFileSync((await savedLosses()).path), (metadata) => {
    const history = JSON.parse(metadata.history);
    history.losses = Array.from({ length: long }, (_, i) => 2 + 1 / (1 + i / 1000) + 0.1 * Math.sin(i));
    const last = history.heads.at(-1);
    history.heads = Array.from({ length: evaluations }, (_, i) => ({ ...last, step: i * (long / evaluations) }));
    const train = JSON.parse(metadata.train_config);
    Object.assign(metadata, {
      history: JSON.stringify(history),
      step: String(long),
      optimizer_step: String(long),
      train_config: JSON.stringify({ ...train, max_iters: long + 10 }),
    });
  });
  await page.getByLabel('Load checkpoint').setInputFiles({ name: 'long.safetensors', mimeType: 'application/octet-stream', buffer });
  await untilStatus(page, /^Loaded a model at step 400,000/);
  assert.match(await page.locator('#loss-chart').getAttribute('aria-label'), /^Loss chart: step 400000, train loss \d\.\d{3}/);
  await page.getByText('6. Inside the model').click();
  await page.getByLabel('Show').selectOption('entropy');
  await page.locator('#heads-view').and(page.getByRole('img', { name: /^Head scores at 20,?000 evaluations/ })).waitFor();
  await page.locator('#heads-view').screenshot({ path: `${SHOTS}16-long-run-heads.png` });
  await page.getByText('6. Inside the model').click(); // closed again
  await page.getByRole('button', { name: 'Resume' }).click();
  await untilStatus(page, /^Finished 400,010 steps/, 60000);
  assert.match(await page.locator('#loss-chart').getAttribute('aria-label'), /^Loss chart: step 400010, /);
  await shot('16-long-run');
  assert.deepEqual(errors, []);
});

test('a full quota is reported, and training goes on', async () => {
  // Chromium keeps an origin's quota once it has stored anything, so this starts in a fresh
  // browser context with the quota overridden before the first save.
  const full = await session.newPage();
  const cdp = await full.context().newCDPSession(full);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(session.url).origin, quotaSize: 1 });
  await full.goto(session.url);
  await untilStatus(full, /^Ready/);
  await full.getByLabel('Iterations', { exact: true }).fill('200');
  await full.getByRole('button', { name: 'Train' }).click();
  await full.locator('#storage-status').getByText(/^Autosave stopped: the browser's storage for this page is full.*Training goes on/).waitFor({ timeout: 30000 });
  await untilStatus(full, /^Finished 200 steps/, 60000);
  await full.screenshot({ path: `${SHOTS}14-quota.png` });
  await full.close();
});

test('a storage that never answers holds up nothing: training runs, and the page says autosave stopped', async () => {
  // The worker's storage module, served with an IndexedDB whose open request never answers.
  const stuck = await session.newPage();
  await stuck.route('**/web/run-store.js', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: `const indexedDB = { open: () => ({}) };\n${await response.text()}` });
  });
  await stuck.goto(session.url);
  await untilStatus(stuck, /^Ready/);
  await stuck.getByLabel('Iterations', { exact: true }).fill('200');
  await stuck.getByRole('button', { name: 'Train' }).click();
  await untilStatus(stuck, /^Finished 200 steps/, 60000);
  await stuck.locator('#storage-status').getByText(/^Autosave stopped: the browser's storage did not answer in 10 s: use Save checkpoint to keep runs as files\. Training goes on/).waitFor({ timeout: 60000 });
  await stuck.screenshot({ path: `${SHOTS}15-storage-stuck.png` });
  await stuck.close();
});

test('a link shares the setup, and opens it', async () => {
  await page.getByLabel('Preset').selectOption('names');
  await page.getByLabel('Corpus').selectOption('shakespeare');
  await fill({ Heads: 2, 'Learning rate': 0.004 });
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#preset=names&corpus=shakespeare&.*n_head=2.*learning_rate=0.004/);
  assert.doesNotMatch(link, /text=|ROMEO/, 'no text in the link');
  const other = await session.newPage();
  await other.goto(link);
  await untilStatus(other, /^Ready/);
  assert.equal(await other.getByLabel('Preset').inputValue(), 'names');
  assert.equal(await other.getByLabel('Corpus').inputValue(), 'shakespeare');
  assert.equal(await other.getByLabel('Heads').inputValue(), '2');
  assert.equal(await other.getByLabel('Learning rate', { exact: true }).inputValue(), '0.004');
  await other.close();
});
