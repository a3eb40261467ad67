// Export for nanoGPT, in Chromium: the download is a zip laid out as a nanoGPT checkout, its
// ckpt.pt holding the page's model (read back with the standard library, python/
// checkpoint_formats.py), and its train.bin and val.bin the page's text; what nanoGPT cannot run
// is refused with the setting to change, and the model stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openPlayground, saveCheckpoint, untilStatus } from './session.mjs';

const PYTHON = new URL('../../python/', import.meta.url).pathname;
let session, page, errors;

before(async () => {
  session = await openPlayground();
  ({ page, errors } = session);
  page.on('dialog', (d) => d.accept());
});
after(() => session?.close());

/** What python/checkpoint_formats.py reads of the export `zip` and the checkpoint `run`. */
function readBack(zip, run) {
  const script = `
import io, json, sys, zipfile
from checkpoint_formats import load_torch, read_safetensors
z = zipfile.ZipFile(sys.argv[1])
names = sorted(z.namelist())
ckpt = [n for n in names if n.endswith('ckpt.pt')][0]
loaded = load_torch(io.BytesIO(z.read(ckpt)))
tensors, meta = read_safetensors(sys.argv[2])
same = all(loaded['model'][n].data == t.data for n, t in tensors.items() if not n.startswith('optimizer.'))
bins = {n: len(z.read(n)) // 2 for n in names if n.endswith('.bin')}
print(json.dumps({'names': names, 'iter_num': loaded['iter_num'], 'same_weights': same, 'bins': bins}))`;
  return JSON.parse(execFileSync('python3', ['-c', script, zip, run], { cwd: PYTHON, encoding: 'utf8' }));
}

test('Export for nanoGPT downloads a nanoGPT checkout of the model and its text', async () => {
  await page.getByLabel('Corpus').selectOption('names');
  await page.getByText(/59,167 characters/).waitFor();
  await page.getByLabel('Preset').selectOption('tiny');
  await page.getByLabel('Iterations', { exact: true }).fill('40');
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 40 steps/, 60000);
  const run = (await saveCheckpoint(page)).path;
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export for nanoGPT' }).click()]);
  assert.equal(download.suggestedFilename(), 'names-tiny-nanogpt.zip');
  await untilStatus(page, /^Saved names-tiny-nanogpt\.zip: unzip it in a nanoGPT checkout/);
  const back = readBack(await download.path(), run);
  assert.deepEqual(back.names, ['README.md', 'config/train_names-tiny.py', 'data/names-tiny/meta.pkl',
    'data/names-tiny/train.bin', 'data/names-tiny/val.bin', 'out-names-tiny/ckpt.pt']);
  assert.equal(back.iter_num, 40);
  assert.ok(back.same_weights, 'ckpt.pt holds the page\'s weights');
  assert.equal(back.bins['data/names-tiny/train.bin'] + back.bins['data/names-tiny/val.bin'], 59167, 'every character of the text');
  assert.deepEqual(errors, []);
});

test('a model nanoGPT cannot run is refused with the setting to change, and stays', async () => {
  await page.getByLabel('RoPE').check();
  await page.getByRole('button', { name: 'Train' }).click();
  await untilStatus(page, /^Finished 40 steps/, 60000);
  await page.getByRole('button', { name: 'Export for nanoGPT' }).click();
  await page.getByRole('alert').getByText(/Not exported for nanoGPT: nanoGPT's model\.py has a learned position table, not RoPE: untick RoPE and train again/).waitFor();
  await page.getByRole('button', { name: 'Generate' }).click();
  await page.waitForFunction(() => document.getElementById('sample-output').textContent.length > 20);
  await session.shot('nanogpt-export-refused');
  assert.deepEqual(errors, []);
});
