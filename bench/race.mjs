#!/usr/bin/env node
// Time to nanoGPT's result, side by side: nanoGPT's own CPU recipe (its train.py, unmodified,
// PyTorch on every core), then a preset (speedrun by default) in the page (Chromium, its default
// workers) and natively, round after round. Each final model is scored the same way: `gpt eval` over every
// non-overlapping window of the held-out 10% (nanoGPT's checkpoint brought back by `gpt import`).
// Usage: node bench/race.mjs --nanogpt PATH [--rounds 3] [--preset speedrun]
//        [--data ../shared/data/tinyshakespeare.txt] [--only nanogpt,page,native]   (after scripts/build.sh and cargo build --release -p gpt-cli;
//        nanoGPT needs torch and numpy, and its data/shakespeare_char is prepared from --data)
//        [--seed 1337]: the page's and the native run's seed (nanoGPT's train.py fixes its own at
//        1337), for the mean over seeds: --only page,native --seed 1
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '../scripts/serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';
import { upperMedian } from './median.mjs';

/** nanoGPT's train.py seeds itself with this; the page and native runs default to it too. */
const NANOGPT_SEED = '1337';
const { values } = parseArgs({ options: {
  nanogpt: { type: 'string' }, rounds: { type: 'string', default: '3' }, preset: { type: 'string', default: 'speedrun' },
  data: { type: 'string', default: '../shared/data/tinyshakespeare.txt' }, only: { type: 'string', default: 'nanogpt,page,native' },
  seed: { type: 'string', default: NANOGPT_SEED },
} });
const only = new Set(values.only.split(','));
if (only.has('nanogpt') && !values.nanogpt) throw new Error('--nanogpt PATH: a checkout of karpathy/nanoGPT');
if (only.has('nanogpt') && values.seed !== NANOGPT_SEED) throw new Error("--seed: nanoGPT's train.py fixes its seed at 1337; add --only page,native");
const GPT = resolve('target/release/gpt');
const work = mkdtempSync(join(tmpdir(), 'race-'));
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] });

// The held-out 10%, as nanoGPT's prepare.py splits it (and the playground).
const text = readFileSync(values.data, 'utf8');
const valText = join(work, 'val.txt');
writeFileSync(valText, text.slice(Math.floor(text.length * 0.9)));
/** `gpt eval`'s loss over every window of the held-out text. */
const score = (checkpoint) => Number(run(GPT, ['eval', '--checkpoint', checkpoint, '--text', valText, '--json']).match(/"loss":([\d.]+)/)[1]);

/** Seconds `f` takes. */
async function timed(f) {
  const start = performance.now();
  const result = await f();
  return { ...result, wall_s: (performance.now() - start) / 1000 };
}

async function nanogpt(round) {
  const data = join(values.nanogpt, 'data/shakespeare_char');
  if (!existsSync(join(data, 'train.bin'))) {
    copyFileSync(values.data, join(data, 'input.txt'));
    run('python3', ['prepare.py'], data);
  }
  const out = join(work, `nanogpt-${round}`);
  // nanoGPT's README: its CPU recipe for Shakespeare.
  const args = ['train.py', 'config/train_shakespeare_char.py', '--device=cpu', '--compile=False', '--eval_iters=20', '--log_interval=1',
    '--block_size=64', '--batch_size=12', '--n_layer=4', '--n_head=4', '--n_embd=128', '--max_iters=2000', '--lr_decay_iters=2000',
    '--dropout=0.0', `--out_dir=${out}`];
  const result = await timed(() => { run('python3', args, values.nanogpt); return {}; });
  const converted = join(work, `nanogpt-${round}.safetensors`);
  run(GPT, ['import', join(out, 'ckpt.pt'), join(data, 'meta.pkl'), '--out', converted]);
  return { engine: 'nanoGPT train.py (PyTorch, every core)', ...result, val_loss: score(converted) };
}

async function page(round) {
  const { server, url } = await serve(0);
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage({ acceptDownloads: true });
    await tab.goto(url);
    await tab.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 30000 });
    await tab.getByLabel('Upload .txt').setInputFiles(values.data);
    await tab.getByText(/characters · vocabulary of 65/).waitFor();
    await tab.getByLabel('Preset').selectOption(values.preset);
    await tab.getByRole('group', { name: 'Training' }).getByLabel('Seed').fill(values.seed);
    const workers = await tab.getByLabel('Workers').inputValue();
    const result = await timed(async () => {
      await tab.getByRole('button', { name: 'Train', exact: true }).click();
      await tab.getByRole('status').getByText(/^Finished [\d,]+ steps/).waitFor({ timeout: 10 * 60000 });
      return {};
    });
    const [download] = await Promise.all([tab.waitForEvent('download'), tab.getByRole('button', { name: 'Save checkpoint' }).click()]);
    const saved = join(work, `page-${round}.safetensors`);
    await download.saveAs(saved);
    return { engine: `${values.preset} in the page (Chromium, ${workers} workers)`, ...result, val_loss: score(saved) };
  } finally {
    await browser.close();
    server.close();
  }
}

async function native(round) {
  const out = join(work, `native-${round}.safetensors`);
  const result = await timed(() => { run(GPT, ['train', '--data', values.data, '--preset', values.preset, '--seed', values.seed, '--out', out]); return {}; });
  return { engine: `${values.preset} natively (gpt train, every core)`, ...result, val_loss: score(out) };
}

const rows = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const [name, f] of [['nanogpt', nanogpt], ['page', page], ['native', native]]) {
    if (!only.has(name)) continue;
    const result = { round, seed: Number(values.seed), ...(await f(round)) };
    console.log(JSON.stringify(result));
    rows.push(result);
  }
}
console.log('| engine | wall time (s), median | each round | full validation loss, median |\n|---|---:|---|---:|');
for (const engine of [...new Set(rows.map((r) => r.engine))]) {
  const mine = rows.filter((r) => r.engine === engine);
  const walls = mine.map((r) => r.wall_s);
  console.log(`| ${engine} | ${upperMedian(walls).toFixed(1)} | ${walls.map((w) => w.toFixed(1)).join(', ')} | ${upperMedian(mine.map((r) => r.val_loss)).toFixed(4)} |`);
}
const byRound = (engine) => rows.filter((r) => r.engine.startsWith(engine));
const [theirs, ours] = [byRound('nanoGPT'), byRound(`${values.preset} in the page`)];
if (theirs.length && ours.length) {
  const ratios = ours.map((o, i) => o.wall_s / theirs[i].wall_s);
  console.log(`page / nanoGPT: ${(upperMedian(ours.map((r) => r.wall_s)) / upperMedian(theirs.map((r) => r.wall_s))).toFixed(3)} (each round: ${ratios.map((r) => r.toFixed(3)).join(', ')})`);
}
