#!/usr/bin/env node
// Whether each task's phenomenon forms, natively, when a learner changes one of its settings from
// the preset: for every field the task's form shows, its smallest and largest allowed values and
// one between each and the preset's, at seed 1337; then seeds 1 and 2 at the preset and at the
// worst cell that the engine accepts. Each run is the preset's recipe (its steps are the budget)
// and stops as soon as the phenomenon forms. A setting the engine refuses is reported with its
// message; one refused only because the block cannot hold a problem is run again with the block
// the message asks for, as its message tells a learner to.
// Usage: node bench/task-grid.mjs [--tasks repeat,sort] [--cap 300] [--threads 2]
//        (after `cargo build --release -p gpt-cli` and scripts/build.sh, whose engine lists the
//        tasks' fields). One JSON line per run, then a Markdown table per task.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { initSync, catalog } from '../pkg/gpt_playground.js';
import { GOALS, metAt } from './task-goals.mjs';

const { values } = parseArgs({ options: {
  tasks: { type: 'string', default: Object.keys(GOALS).join(',') },
  cap: { type: 'string', default: '300' },
  threads: { type: 'string', default: '2' },
} });
initSync({ module: readFileSync(new URL('../pkg/gpt_playground_bg.wasm', import.meta.url)) });
const { tasks, presets } = catalog();
const GPT = new URL('../target/release/gpt', import.meta.url).pathname;
const flag = (name) => `--${name.replaceAll('_', '-')}`;

/** The values the grid tries for `field` around the preset's `at`: the ends and a point between each and it. */
function around(field, at) {
  const a = field.accepts;
  if (a.type === 'choice') return a.options.map(([v]) => v).filter((v) => v !== at);
  const [lo, hi] = a.type === 'count' ? [a.min, a.max] : [0.05, 0.95];
  const mid = (x, y) => (a.type === 'count' ? Math.round((x + y) / 2) : Number(((x + y) / 2).toFixed(2)));
  return [...new Set([lo, mid(lo, at), mid(at, hi), hi])].filter((v) => v !== at);
}

/**
 * One native run of `task`'s preset with `extra` flags: when its goal was met (step, seconds), or
 * how far it got; or the engine's refusal.
 */
function train(task, seed, extra) {
  const args = ['train', '--task', task, '--seed', String(seed), '--json', '--threads', values.threads, ...extra];
  return new Promise((resolve) => {
    const child = spawn(GPT, args);
    let out = '', err = '', last = null, met = null;
    const timer = setTimeout(() => child.kill(), Number(values.cap) * 1000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const lines = out.split('\n');
      out = lines.pop();
      for (const text of lines) {
        last = JSON.parse(text);
        const step = metAt(GOALS[task], last);
        if (step !== null && !met) {
          met = { step, seconds: Number(last.wall_s.toFixed(1)) };
          child.kill();
        }
      }
    });
    child.stderr.on('data', (chunk) => { err += chunk; });
    child.on('close', () => {
      clearTimeout(timer);
      if (!last) return resolve({ refused: err.trim().replace(/^error: /, '') });
      const reached = { step: last.step, seconds: Number(last.wall_s.toFixed(1)), val_accuracy: last.val_accuracy };
      resolve(met ? { formed: met } : { not_formed: reached, capped: last.summary !== true });
    });
  });
}

/** A run as `train` gives it, run again with the block its refusal asks for when that is all it asks. */
async function trainFitting(task, seed, extra) {
  const result = await train(task, seed, extra);
  const need = result.refused?.match(/Block size must hold a whole problem of the \w+ task: (\d+) tokens/);
  if (!need) return result;
  return { ...(await train(task, seed, [...extra, '--block-size', need[1]])), block_size: Number(need[1]) };
}

/** A cell in words: when it formed, how far it got, or why the engine refused it. */
function say(r) {
  const block = r.block_size ? ` (block ${r.block_size})` : '';
  if (r.formed) return `step ${r.formed.step.toLocaleString('en-US')}, ${r.formed.seconds} s${block}`;
  if (r.refused) return `refused: ${r.refused}`;
  const acc = r.not_formed.val_accuracy == null ? '' : `, ${(100 * r.not_formed.val_accuracy).toFixed(0)}% held out`;
  const where = r.capped ? `stopped at ${values.cap} s` : 'not within its steps';
  return `**no**: ${where} (step ${r.not_formed.step.toLocaleString('en-US')}${acc})${block}`;
}

/** How bad a cell is, to pick the worst one the engine accepts: unformed first, then the slowest. */
const badness = (r) => (r.refused ? -1 : r.formed ? r.formed.step : Infinity);

for (const task of values.tasks.split(',')) {
  const preset = presets.find((p) => p.settings.task?.name === task);
  const settings = preset.settings.task;
  const fields = tasks.find((t) => t.name === task).fields;
  const cells = [];
  const run = async (setting, seed, extra) => {
    const r = { task, setting, seed, ...(await trainFitting(task, seed, extra)), extra };
    console.log(JSON.stringify(r));
    cells.push(r);
  };
  await run('the preset', 1337, []);
  for (const field of fields) {
    for (const v of around(field, settings[field.name])) await run(`${field.label} ${v}`, 1337, [flag(field.name), String(v)]);
  }
  const worst = cells.filter((c) => c.setting !== 'the preset').sort((a, b) => badness(b) - badness(a))[0];
  for (const seed of [1, 2]) {
    await run('the preset', seed, []);
    if (worst && !worst.refused) await run(worst.setting, seed, worst.extra);
  }
  console.log(`\n### ${task} (preset \`${preset.name}\`: ${GOALS[task].says} within ${preset.settings.train.max_iters.toLocaleString('en-US')} steps)\n`);
  console.log('| setting | seed | result |\n|---|---|---|');
  for (const c of cells) console.log(`| ${c.setting} | ${c.seed} | ${say(c)} |`);
  console.log();
}
