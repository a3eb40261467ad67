#!/usr/bin/env node
// Every preset's checkpoint after a short run, fingerprinted: natively with 1, 2 and 3 threads,
// and in the page (Chromium) with 1, 2 and 4 workers. A change that must not change training
// (a refactor) keeps every fingerprint; run this before and after it and compare the two files.
// Usage: node bench/checkpoints.mjs [--native] [--page] [--out FILE] [--compare FILE]
//        (after cargo build --release -p gpt-cli and scripts/build.sh; by default both)
// A fingerprint is the SHA-256 of the file with each step's wall-clock time (history.seconds)
// left out: everything else, weights, optimiser state, losses and records, is bit for bit.
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPlayground, saveCheckpoint, untilStatus } from '../tests/e2e/session.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEXTS = ['tiny', 'names', 'nano-cpu', 'nano-muon', 'speedrun'];
const TASKS = { induction: 'repeat', reverse: 'reverse', sort: 'sort', addition: 'addition', grokking: 'modular', brackets: 'brackets', parity: 'parity', recall: 'recall' };
/** A short run that still evaluates (and records the views) several times and clips, warms up and decays. */
const RECIPE = { iters: 30, warmup: 5, evalInterval: 10 };

const { values: args } = parseArgs({ options: {
  native: { type: 'boolean' }, page: { type: 'boolean' }, out: { type: 'string' }, compare: { type: 'string' },
} });
const both = !args.native && !args.page;

/** The checkpoint's SHA-256 without the steps' wall-clock times. */
export function fingerprint(file) {
  const length = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + length).toString('utf8'));
  const { history } = header.__metadata__;
  header.__metadata__.history = history.replace(/,"seconds":\[[^\]]*\]/, '');
  const sorted = (v) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
  return createHash('sha256').update(JSON.stringify(sorted(header))).update(file.subarray(8 + length)).digest('hex').slice(0, 16);
}

function native(lines) {
  const gpt = path.join(ROOT, 'target/release/gpt');
  const data = path.join(ROOT, '../shared/data/tinyshakespeare.txt');
  const work = mkdtempSync(path.join(tmpdir(), 'checkpoints-'));
  const runs = [...TEXTS.map((p) => [p, ['--data', data, '--preset', p]]), ...Object.entries(TASKS).map(([p, t]) => [p, ['--task', t]])];
  for (const [preset, flags] of runs) {
    for (const threads of [1, 2, 3]) {
      const out = path.join(work, `${preset}-${threads}.safetensors`);
      execFileSync(gpt, ['train', ...flags, '--iters', RECIPE.iters, '--warmup', RECIPE.warmup, '--eval-interval', RECIPE.evalInterval,
        '--threads', threads, '--out', out, '--json'].map(String), { stdio: 'ignore' });
      lines.push(`native ${preset} threads=${threads} ${fingerprint(readFileSync(out))}`);
      console.log(lines.at(-1));
    }
  }
}

async function page(lines) {
  const session = await openPlayground();
  const { page } = session;
  page.on('dialog', (d) => d.accept()); // each new run replaces the last
  try {
    for (const preset of [...TEXTS, ...Object.keys(TASKS)]) {
      for (const workers of [1, 2, 4]) {
        const task = TASKS[preset];
        await page.getByLabel('Corpus').selectOption(task ? `task:${task}` : 'shakespeare');
        await page.getByLabel('Preset').selectOption(preset);
        await page.getByLabel('Workers').selectOption(String(workers));
        await page.getByLabel('Iterations', { exact: true }).fill(String(RECIPE.iters));
        await page.getByLabel('Warmup steps').fill(String(RECIPE.warmup));
        await page.getByLabel('Eval every').fill(String(RECIPE.evalInterval));
        await page.getByRole('button', { name: 'Train', exact: true }).click();
        await untilStatus(page, `Finished ${RECIPE.iters} steps.`, 300000);
        const { path: file } = await saveCheckpoint(page);
        lines.push(`page ${preset} workers=${workers} ${fingerprint(readFileSync(file))}`);
        console.log(lines.at(-1));
      }
    }
  } finally {
    await session.close();
  }
}

const lines = [];
if (both || args.native) native(lines);
if (both || args.page) await page(lines);
if (args.out) writeFileSync(args.out, `${lines.join('\n')}\n`);
if (args.compare) {
  const before = new Map(readFileSync(args.compare, 'utf8').trim().split('\n').map((l) => [l.split(' ').slice(0, 3).join(' '), l.split(' ')[3]]));
  const changed = lines.filter((l) => before.has(l.split(' ').slice(0, 3).join(' ')) && before.get(l.split(' ').slice(0, 3).join(' ')) !== l.split(' ')[3]);
  const compared = lines.filter((l) => before.has(l.split(' ').slice(0, 3).join(' '))).length;
  console.log(`${compared} fingerprints compared with ${args.compare}: ${changed.length} changed${changed.length ? `:\n${changed.join('\n')}` : ''}`);
  if (changed.length || compared === 0) process.exitCode = 1;
}
