// Export for nanoGPT and Transformers, and back, in Chromium: the download is one zip, a nanoGPT
// checkout's files (ckpt.pt holding the page's model, read back with the standard library,
// python/checkpoint_formats.py; train.bin and val.bin the page's text) beside a Transformers
// folder. Loading that zip brings the run back with its text; loading a Transformers folder's
// files, or the folder zipped with compression as a system's zip tool does, brings the model
// back. What nanoGPT cannot hold is left out, with the setting to change, and goes to
// Transformers with its own modelling code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPlayground, saveCheckpoint, untilStatus } from './session.mjs';

const PYTHON = new URL('../../python/', import.meta.url).pathname;
let session, page, errors, exported;

before(async () => {
  session = await openPlayground();
  ({ page, errors } = session);
  page.on('dialog', (d) => d.accept());
});
after(() => session?.close());

/** What python/checkpoint_formats.py reads of the export `zip` and the checkpoint `run`; the zip is unpacked into `dir`. */
function readBack(zip, run, dir) {
  const script = `
import io, json, sys, zipfile
from checkpoint_formats import load_torch, read_safetensors
z = zipfile.ZipFile(sys.argv[1])
z.extractall(sys.argv[3])
names = sorted(z.namelist())
ckpt = [n for n in names if n.endswith('ckpt.pt')][0]
loaded = load_torch(io.BytesIO(z.read(ckpt)))
tensors, meta = read_safetensors(sys.argv[2])
same = all(loaded['model'][n].data == t.data for n, t in tensors.items() if not n.startswith('optimizer.'))
bins = {n: len(z.read(n)) // 2 for n in names if n.endswith('.bin')}
print(json.dumps({'names': names, 'iter_num': loaded['iter_num'], 'same_weights': same, 'bins': bins}))`;
  return JSON.parse(execFileSync('python3', ['-c', script, zip, run, dir], { cwd: PYTHON, encoding: 'utf8' }));
}

const exportButton = () => page.getByRole('button', { name: 'Export for nanoGPT and Transformers' });

test('Export downloads one zip: a nanoGPT checkout of the model and its text, and a Transformers folder', async () => {
  await page.getByLabel('Corpus').selectOption('names');
  await page.getByText(/59,167 characters/).waitFor();
  await page.getByLabel('Preset').selectOption('tiny');
  await page.getByLabel('Iterations', { exact: true }).fill('40');
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 40 steps/, 60000);
  const run = (await saveCheckpoint(page)).path;
  const [download] = await Promise.all([page.waitForEvent('download'), exportButton().click()]);
  assert.equal(download.suggestedFilename(), 'names-tiny-export.zip');
  await untilStatus(page, /^Saved names-tiny-export\.zip: names-tiny-nanogpt\/ goes into a nanoGPT checkout, names-tiny-transformers\/ loads with from_pretrained/);
  exported = { zip: await download.path(), dir: mkdtempSync(join(tmpdir(), 'export-')) };
  const back = readBack(exported.zip, run, exported.dir);
  const nano = 'names-tiny-nanogpt/';
  const hf = 'names-tiny-transformers/';
  assert.deepEqual(back.names, ['README.md', `${nano}README.md`, `${nano}config/train_names-tiny.py`, `${nano}data/names-tiny/meta.pkl`,
    `${nano}data/names-tiny/train.bin`, `${nano}data/names-tiny/val.bin`, `${nano}out-names-tiny/ckpt.pt`,
    `${hf}README.md`, `${hf}config.json`, `${hf}generation_config.json`, `${hf}gpt_playground_lens.py`, `${hf}model.safetensors`,
    `${hf}tokenizer.json`, `${hf}tokenizer_config.json`]);
  assert.equal(back.iter_num, 40);
  assert.ok(back.same_weights, 'ckpt.pt holds the page\'s weights');
  assert.equal(back.bins[`${nano}data/names-tiny/train.bin`] + back.bins[`${nano}data/names-tiny/val.bin`], 59167, 'every character of the text');
  assert.deepEqual(errors, []);
});

test('the export\'s zip loads back with its text, and a Transformers folder\'s files load back too, and so does the folder zipped with compression', async () => {
  const box = page.getByLabel('Training text');
  const names = await box.inputValue();
  await page.getByLabel('Corpus').selectOption('shakespeare');
  await page.waitForFunction((before) => document.getElementById('text').value !== before, names);
  await page.getByLabel('Load checkpoint').setInputFiles(exported.zip);
  await untilStatus(page, /^Loaded a model from nanoGPT with its text at step 40\. Sample from it, or /);
  assert.equal(await box.inputValue(), names, 'the run\'s own text came back from train.bin and val.bin');
  assert.equal(await page.getByLabel('Corpus').inputValue(), 'own');

  const folder = join(exported.dir, 'names-tiny-transformers');
  await page.getByLabel('Load checkpoint').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(folder, f)));
  await untilStatus(page, /^Loaded a model from Transformers at step 40\./);
  await page.getByRole('button', { name: 'Generate' }).click();
  await page.waitForFunction(() => document.getElementById('sample-output').textContent.length > 20);

  await page.getByLabel('Load checkpoint').setInputFiles(join(folder, 'README.md'));
  await page.getByRole('alert').getByText(/none of these files is a model: choose a gpt-playground checkpoint/).waitFor();
  await untilStatus(page, /The checkpoint was not loaded; the current model is unchanged/);
  await session.shot('import-refused');
  // Then the folder zipped as a person's own system zips it (deflated, with the folder's own entry).
  const zipped = join(exported.dir, 'names-tiny-transformers.zip');
  execFileSync('python3', ['-c', `import sys, zipfile, os
with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:
    z.write(sys.argv[1], 'names-tiny-transformers/')
    for f in sorted(os.listdir(sys.argv[1])): z.write(os.path.join(sys.argv[1], f), 'names-tiny-transformers/' + f)`, folder, zipped]);
  await page.getByLabel('Load checkpoint').setInputFiles(zipped);
  await untilStatus(page, /^Loaded a model from Transformers at step 40\./);

  assert.deepEqual(errors, []);
});

test('a model nanoGPT cannot run goes to Transformers with its own code, says why nanoGPT\'s is missing, and loads back', async () => {
  await page.getByLabel('Corpus').selectOption('names');
  await page.getByText(/59,167 characters/).waitFor();
  await page.getByLabel('RoPE').check();
  await page.getByLabel('QK-norm').check(); // RoPE alone would be Transformers' own Starcoder2
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 40 steps/, 60000);
  const [download] = await Promise.all([page.waitForEvent('download'), exportButton().click()]);
  await untilStatus(page, /^Saved names-tiny-2-export\.zip: names-tiny-2-transformers\/ loads with from_pretrained; each README\.md has the commands\. It is not for nanoGPT: nanoGPT's model\.py has a learned position table, not RoPE: untick RoPE and train again to export for nanoGPT, or take the Transformers export, which holds every run as it is\./);
  await session.shot('export-transformers-only');
  const dir = mkdtempSync(join(tmpdir(), 'export-rope-'));
  const names = JSON.parse(execFileSync('python3', ['-c', `import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); z.extractall(sys.argv[2]); print(json.dumps(sorted(z.namelist())))`, await download.path(), dir], { encoding: 'utf8' }));
  assert.ok(names.includes('names-tiny-2-transformers/modeling_gpt_playground.py'), names.join(' '));
  assert.ok(!names.some((n) => n.includes('nanogpt')), names.join(' '));
  await page.getByLabel('Load checkpoint').setInputFiles(['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => join(dir, 'names-tiny-2-transformers', f)));
  await untilStatus(page, /^Loaded a model from Transformers at step 40\./);
  assert.ok(await page.getByLabel('RoPE').isChecked() && await page.getByLabel('QK-norm').isChecked(), 'the run\'s settings came back');
  await page.getByRole('button', { name: 'Generate' }).click();
  await page.waitForFunction(() => document.getElementById('sample-output').textContent.length > 20);
  assert.deepEqual(errors, []);
});
