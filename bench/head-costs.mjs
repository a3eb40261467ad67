#!/usr/bin/env node
// Which heads each task preset's trained model needs: every task's preset trained natively with
// the CLI, then each head and MLP knocked out alone (`gpt inspect ablation`, mean and zero fill),
// as a Markdown table of the held-out accuracy each costs, costliest first; and, for modular
// addition, grokking's key frequencies and where the restricted and excluded losses part.
// Usage: node bench/head-costs.mjs [--tasks repeat,reverse,…] [--seed 1337]
//        (after `cargo build --release -p gpt-cli`). Checkpoints go to target/head-costs/.
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const TASKS = ['repeat', 'reverse', 'sort', 'addition', 'modular', 'brackets', 'parity', 'recall'];
const GPT = new URL('../target/release/gpt', import.meta.url).pathname;
const OUT = new URL('../target/head-costs/', import.meta.url).pathname;

const { values } = parseArgs({ options: { tasks: { type: 'string', default: TASKS.join(',') }, seed: { type: 'string', default: '1337' } } });
mkdirSync(OUT, { recursive: true });
const gpt = (...args) => execFileSync(GPT, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
const percent = (x) => `${(x * 100).toFixed(1)}%`;

/** Every part's name and its cost under `fill`, costliest first (accuracy, then loss). */
function costs(checkpoint, fill) {
  const { grid } = JSON.parse(gpt('inspect', '--checkpoint', checkpoint, 'ablation', '--fill', fill, '--json'));
  const layers = grid.mlp_accuracy.length;
  const nh = grid.head_accuracy.length / layers;
  const heads = grid.head_accuracy.map((accuracy, i) => ({ name: `L${Math.floor(i / nh) + 1}H${(i % nh) + 1}`, accuracy, loss: grid.head_loss[i] }));
  const mlps = grid.mlp_accuracy.map((accuracy, l) => ({ name: `MLP${l + 1}`, accuracy, loss: grid.mlp_loss[l] }));
  const order = (a, b) => b.accuracy - a.accuracy || b.loss - a.loss;
  return { grid, heads: heads.sort(order), mlps };
}

const signed = (x) => (x < -0.005 ? x.toFixed(2) : `+${Math.abs(x).toFixed(2)}`);
const show = (p) => `${p.name} ${percent(p.accuracy)} (loss ${signed(p.loss)})`;

console.log('| preset (task) | held out | costliest head | the other heads, each alone | MLPs | zero fill: costliest head |');
console.log('|---|---|---|---|---|---|');
for (const task of values.tasks.split(',')) {
  const checkpoint = `${OUT}${task}-${values.seed}.safetensors`;
  gpt('train', '--task', task, '--seed', values.seed, '--json', '--out', checkpoint);
  const mean = costs(checkpoint, 'mean');
  const zero = costs(checkpoint, 'zero');
  const [top, ...rest] = mean.heads;
  const whole = `${percent(mean.grid.whole.accuracy)} of ${mean.grid.rows}`;
  console.log(`| ${task} | ${whole} | ${show(top)} | ${rest.map(show).join(', ')} | ${mean.mlps.map(show).join(', ')} | ${show(zero.heads[0])} |`);
  if (task === 'modular') grokking(checkpoint);
}

/** The key frequencies at the end, and the first records where the restricted loss falls below the held-out loss and the excluded loss rises above the training loss by 1. */
function grokking(checkpoint) {
  const { history, now } = JSON.parse(gpt('inspect', '--checkpoint', checkpoint, 'fourier', '--json'));
  const first = (test) => history.find(test)?.step ?? 'never';
  console.error(JSON.stringify({
    key: now.key,
    restricted_below_held_out: first((p) => p.restricted_loss < p.test_loss - 1),
    excluded_above_train: first((p) => p.excluded_loss > p.train_loss + 1),
    held_out_below_1: first((p) => p.test_loss < 1),
    records: history.map((p) => [p.step, +p.train_loss.toFixed(3), +p.test_loss.toFixed(3), +p.restricted_loss.toFixed(3), +p.excluded_loss.toFixed(3), p.key.length]),
  }));
}
