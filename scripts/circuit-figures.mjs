#!/usr/bin/env node
// The measured figures docs/circuits.md shows, written by this build: each task's preset trained by
// the CLI, its circuit found under each corruption, with MIB's scores of each ranking; the models
// built by hand, each way scored against their circuits; the induction preset over seven seeds; and, with
// --graphs, three attribution graphs and what knocking out their strongest features does. Each
// block of the page between `<!-- figures: NAME -->` and `<!-- /figures -->` is rewritten whole (its
// tables and the sentences that quote them), stamped with the commit and the machine, so the page
// says what this build measures; rerun it whenever training changes.
// Usage: node scripts/circuit-figures.mjs [--graphs] [--check] [--work DIR]
//        (after cargo build --release -p gpt-cli; --graphs reads ../shared/data/tinyshakespeare.txt)
//   --check  rewrites nothing: says which blocks differ from what this build measures, and exits 1 if any do.
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const ROOT = new URL('..', import.meta.url).pathname;
const GPT = `${ROOT}target/release/gpt`;
const PAGE = `${ROOT}docs/circuits.md`;
const SHAKESPEARE = `${ROOT}../shared/data/tinyshakespeare.txt`;
const { values: flags } = parseArgs({ options: {
  graphs: { type: 'boolean', default: false },
  check: { type: 'boolean', default: false },
  work: { type: 'string', default: `${ROOT}target/circuit-figures/` },
} });
const commit = execFileSync('git', ['-C', ROOT, 'describe', '--always', '--dirty', '--abbrev=7'], { encoding: 'utf8' }).trim(); // "-dirty": with changes not committed
const work = `${flags.work}${commit}/`;
mkdirSync(work, { recursive: true });

const gpt = (...args) => execFileSync(GPT, args.map(String), { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
const json = (...args) => JSON.parse(gpt(...args, '--json').trim().split('\n').at(-1));
const fixed = (x, d) => x.toFixed(d).replace(/^-0\.0+$/, '0.00');
const signed = (x, d) => (x < 0 ? `−${fixed(-x, d)}` : fixed(x, d));
const share = (n, of) => `${n} (${(100 * n / of).toFixed(1)}%)`;
const stamp = `Measured by \`node scripts/circuit-figures.mjs\` on commit ${commit} (${new Date().toISOString().slice(0, 10)}, ${cpus()[0].model.trim()}, ${cpus().length} cores).`;

/** Trains `task`'s preset (with `seed`, else its own) once per commit: the checkpoint and the run's last evaluation. */
function trained(task, seed) {
  const name = `${work}task-${task}${seed === undefined ? '' : `-seed${seed}`}`;
  if (!existsSync(`${name}.safetensors`)) {
    const lines = gpt('train', '--task', task, ...(seed === undefined ? [] : ['--seed', seed]), '--json', '--out', `${name}.safetensors`);
    writeFileSync(`${name}.json`, lines.trim().split('\n').at(-1));
  }
  return { checkpoint: `${name}.safetensors`, summary: JSON.parse(readFileSync(`${name}.json`, 'utf8')) };
}

const found = new Map();
/** The circuit of a checkpoint under `corruption`, as the CLI finds it (`--json`), with a name per edge; found once. */
function circuit(checkpoint, corruption, metric = 'logit-difference') {
  const key = `${checkpoint} ${corruption} ${metric}`;
  if (!found.has(key)) found.set(key, findCircuit(checkpoint, corruption, metric));
  return found.get(key);
}

function findCircuit(checkpoint, corruption, metric) {
  const c = json('inspect', '--checkpoint', checkpoint, 'circuit', '--corruption', corruption, '--metric', metric);
  c.names = c.graph.edges.map((e) => e.name);
  c.by = Object.fromEntries(c.circuits.map((w) => [w.method, w]));
  c.spearman = Object.fromEntries(c.agreement.map((a) => [a.method, a.spearman]));
  return c;
}

/** The strongest edge by exact patching among those `keep` accepts: its name and three scores. */
function strongest(c, keep = () => true) {
  let best = -1;
  c.names.forEach((name, i) => { if (keep(name) && (best < 0 || Math.abs(c.exact[i]) > Math.abs(c.exact[best]))) best = i; });
  return best < 0 ? null : { name: c.names[best], exact: c.exact[best], eap: c.eap[best], eapIg: c.eap_ig[best] };
}

const scores = (e) => `\`${e.name}\`: exact ${signed(e.exact, 2)}, EAP ${signed(e.eap, 3)}, EAP-IG ${signed(e.eapIg, 2)}`;
const way = (c, method) => `${share(c.by[method].edges.length, c.names.length)}, ${fixed(c.by[method].faithfulness, 3)}`;
/** An edge into a second-layer head's key from the first layer (a head or the MLP): the K-composition edge. */
const keyEdge = (name) => /^(a0\.h\d+|m0)->a1\.h\d+<k>$/.test(name);

/** Each task, under the corruptions it takes, and the presets named otherwise than their task. */
const TASKS = { repeat: ['symbol', 'swap'], reverse: ['symbol'], sort: ['symbol'], addition: ['symbol'], modular: ['symbol'], brackets: ['symbol'], parity: ['symbol'], recall: ['symbol', 'swap'] };
const PRESETS = { repeat: 'induction', modular: 'grokking' };

const BLOCKS = {
  induction() {
    const { checkpoint, summary } = trained('repeat');
    const rows = ['symbol', 'swap'].map((corruption) => ({ corruption, c: circuit(checkpoint, corruption) }));
    const [symbol, swap] = rows.map((r) => r.c);
    const k = strongest(swap, keyEdge);
    return [
      `Trained by \`gpt train --task repeat\` (${summary.step.toLocaleString('en')} steps, ${(100 * summary.val_accuracy).toFixed(1)}% of held-out problems right), measured with`,
      '`gpt inspect circuit --checkpoint induction.ckpt --corruption symbol|swap`. Each circuit is the fewest edges keeping',
      '90% of the logit difference (the share of all edges in brackets), then its faithfulness:',
      '',
      '| corruption | metric clean / corrupted | exact ranking | EAP-IG ranking | EAP ranking | greedy | Spearman EAP / EAP-IG |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(({ corruption, c }) => `| ${corruption === 'symbol' ? 'symbol (what is copied)' : 'swap (where to look)'} | ${fixed(c.clean, 2)} / ${signed(c.corrupted, 2)} | ${way(c, 'exact')} | ${way(c, 'eap_ig')} | ${way(c, 'eap')} | ${way(c, 'greedy')} | ${fixed(c.spearman.eap, 3)} / ${fixed(c.spearman.eap_ig, 3)} |`),
      '',
      `Under the symbol change the strongest edge is ${scores(strongest(symbol))}. Under the swap it is`,
      `${scores(strongest(swap))}; and the strongest edge into a second-layer head's key is`,
      k ? `${scores(k)}.` : 'none (no first-layer part writes into a key).',
      '',
      stamp,
    ].join('\n');
  },

  seeds() {
    const row = (seed) => {
      const { checkpoint, summary } = seed === 1337 ? trained('repeat') : trained('repeat', seed); // 1337: the preset's own
      const [diff, loss] = [circuit(checkpoint, 'swap'), circuit(checkpoint, 'swap', 'loss')];
      const top = strongest(diff);
      const k = strongest(diff, keyEdge);
      const size = (c, method) => share(c.by[method].edges.length, c.names.length);
      return `| ${seed}${seed === 1337 ? " (the preset's)" : ''} | \`${top.name}\` ${signed(top.exact, 1)} | ${k ? `\`${k.name}\` ${signed(k.exact, 1)}` : '—'} | ${size(diff, 'exact')} | ${size(diff, 'greedy')} | ${size(loss, 'exact')} | ${size(loss, 'greedy')} | ${summary.milestones.circuit ?? 'not within the run'} |`;
    };
    return [
      '| seed | strongest edge | strongest edge into a key | logit difference: exact ranking | greedy | loss: exact ranking | greedy | circuit formed at |',
      '|---|---|---|---|---|---|---|---|',
      ...[1337, 1, 2, 3, 4, 5, 6].map(row),
      '',
      stamp,
    ].join('\n');
  },

  tasks() {
    const rows = Object.entries(TASKS).flatMap(([task, corruptions]) => corruptions.map((corruption) => {
      const { checkpoint, summary } = trained(task);
      const c = circuit(checkpoint, corruption);
      const e = c.examples[0];
      const pair = `${JSON.stringify(e.clean)} → ${JSON.stringify(e.answer)}, ${JSON.stringify(e.corrupted)} → ${JSON.stringify(e.wrong)}`;
      const size = (method) => share(c.by[method].edges.length, c.names.length);
      return `| ${PRESETS[task] ?? task} | ${(100 * summary.val_accuracy).toFixed(1)}% | ${corruption} | ${pair} | ${fixed(c.clean, 1)} / ${signed(c.corrupted, 1)} | ${c.names.length} | ${size('exact')} | ${size('eap_ig')} | ${size('eap')} | ${size('greedy')} | ${fixed(c.spearman.eap, 3)} / ${fixed(c.spearman.eap_ig, 3)} |`;
    }));
    return [
      '| preset | held out right | corruption | a pair | metric clean / corrupted | edges | exact ranking | EAP-IG ranking | EAP ranking | greedy | Spearman EAP / EAP-IG |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      stamp,
    ].join('\n');
  },

  mib() {
    const rows = Object.entries(TASKS).flatMap(([task, corruptions]) => corruptions.map((corruption) => {
      const c = circuit(trained(task).checkpoint, corruption);
      const scores = (method) => `${fixed(c.by[method].mib.cpr, 3)} / ${fixed(c.by[method].mib.cmd, 3)}`;
      return `| ${PRESETS[task] ?? task} | ${corruption} | ${c.names.length} | ${scores('exact')} | ${scores('eap_ig')} | ${scores('eap')} |`;
    }));
    return [
      '| preset | corruption | edges | exact: CPR / CMD | EAP-IG: CPR / CMD | EAP: CPR / CMD |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      stamp,
    ].join('\n');
  },

  built() {
    const BUILT = { induction: ['symbol', 'swap'], backup: ['symbol'], reverse: ['symbol'] };
    const rows = Object.entries(BUILT).flatMap(([name, corruptions]) => {
      const checkpoint = `${work}built-${name}.safetensors`;
      gpt('build', name, '--out', checkpoint);
      return corruptions.map((corruption) => {
        const c = circuit(checkpoint, corruption);
        const scored = (method) => {
          const { truth, mib } = c.by[method];
          const areas = mib ? `, CPR ${fixed(mib.cpr, 3)}, CMD ${fixed(mib.cmd, 3)}` : '';
          return `${fixed(truth.auroc, 3)} / ${fixed(truth.precision, 2)} / ${fixed(truth.recall, 2)}${areas}`;
        };
        return `| ${name} | ${corruption} | ${c.known.length} of ${c.names.length} | ${scored('exact')} | ${scored('eap_ig')} | ${scored('eap')} | ${scored('greedy')} |`;
      });
    });
    return [
      '| built model | corruption | true edges | exact | EAP-IG | EAP | greedy |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      'Each cell: AUROC / precision / recall against the true edges, then MIB\'s CPR and CMD.',
      '',
      stamp,
    ].join('\n');
  },

  graphs() {
    if (!flags.graphs) return null; // kept as it is: minutes of training, asked for with --graphs
    const runs = [
      ['induction preset', trained('repeat').checkpoint, ['--k', 32, '--expansion', 8, '--steps', 300], null],
      ['nano-cpu', textRun('nano-cpu', ['--preset', 'nano-cpu']), ['--data', SHAKESPEARE, '--steps', 200], 'No, good madam, pardon me; indeed, I will not'],
      ['modular addition', trained('modular').checkpoint, ['--k', 32, '--expansion', 8, '--steps', 3000, '--lr', 3e-3], '78+25='],
    ];
    const rows = [];
    const knocks = [];
    for (const [label, checkpoint, args, given] of runs) {
      const traced = checkpoint.replace('.safetensors', '-traced.safetensors');
      const data = args.includes('--data') ? ['--data', SHAKESPEARE] : [];
      let measures;
      if (!existsSync(traced)) {
        const lines = gpt('features', '--checkpoint', checkpoint, ...args, '--transcoders', '--save', traced, '--json');
        writeFileSync(traced.replace('.safetensors', '.json'), lines.trim().split('\n').at(-1));
      }
      measures = JSON.parse(readFileSync(traced.replace('.safetensors', '.json'), 'utf8'));
      const prompt = given ?? json('inspect', '--checkpoint', traced, 'circuit').examples[0].clean;
      const g = json('features', '--checkpoint', traced, ...data, '--steps', 0, '--graph', prompt);
      const top = g.logits[0];
      const last = g.tokens.length - 1;
      const features = g.into_top.map(([name]) => name.split(' ')[0]).filter((n) => /^L\d+F\d+@\d+$/.test(n));
      const here = features.filter((n) => n.endsWith(`@${last}`));
      const at = (here.length ? here : features).slice(0, 2); // at the last position where any feature there reaches the top token
      const knocked = json('features', '--checkpoint', traced, ...data, '--steps', 0, '--graph', prompt, '--intervene', ...at, '--factor', 0).intervention.effects[0];
      const m = measures.measures;
      rows.push(`| ${label} | ${fixed(m.top1_agreement * 100, 1)}% top-1 agreement | ${JSON.stringify(prompt.length > 24 ? `${prompt.slice(0, 21)}...` : prompt)} → ${JSON.stringify(knocked.token)} (${fixed(top.probability, 3)}) | ${g.features.toLocaleString('en')} | ${fixed(g.scores.completeness, 3)} | ${fixed(g.scores.replacement, 3)} | ${g.kept_features} features, ${g.kept_edges.toLocaleString('en')} edges |`);
      knocks.push(`| ${label} | ${at.map((n) => `\`${n}\``).join(', ')} | ${signed(knocked.predicted, 2)} | ${signed(knocked.replacement, 2)} | ${signed(knocked.frozen_attention, 2)} | ${signed(knocked.free_attention, 2)} | ${fixed(knocked.probability, 3)} |`);
    }
    return [
      '| run | transcoders | prompt → top token | active features | completeness | replacement | kept by pruning |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      "Knocking out the two features with the strongest direct effects on the top token (those at the last position where any there are among the strongest) (`--intervene … --factor 0`): the top token's logit change (less the mean's), as the graph predicts it, in the replacement model, and in the model with attention frozen (circuit-tracer's `feature_intervention`) and free; then its probability after:",
      '',
      '| run | features knocked out | graph | replacement model | model, attention frozen | model, attention free | probability after |',
      '|---|---|---|---|---|---|---|',
      ...knocks,
      '',
      stamp,
    ].join('\n');
  },
};

/** A text run of `args` on tiny Shakespeare, trained once per commit. */
function textRun(name, args) {
  const checkpoint = `${work}${name}.safetensors`;
  if (!existsSync(checkpoint)) gpt('train', '--data', SHAKESPEARE, ...args, '--out', checkpoint);
  return checkpoint;
}

let text = readFileSync(PAGE, 'utf8');
const stale = [];
for (const [name, make] of Object.entries(BLOCKS)) {
  const open = `<!-- figures: ${name} -->\n`;
  const start = text.indexOf(open);
  const end = text.indexOf('<!-- /figures -->', start);
  if (start < 0 || end < 0) throw new Error(`docs/circuits.md has no block "<!-- figures: ${name} -->"`);
  const made = make();
  if (made === null) continue;
  const strip = (s) => s.replace(/^Measured by .*$/m, '');
  const old = text.slice(start + open.length, end);
  if (strip(old) !== strip(`${made}\n`)) stale.push(name);
  text = `${text.slice(0, start + open.length)}${made}\n${text.slice(end)}`;
  console.log(`${name}:\n${made}\n`);
}
if (flags.check) {
  console.log(stale.length ? `these blocks differ from what this build measures: ${stale.join(', ')}` : 'every block is what this build measures');
  process.exit(stale.length ? 1 : 0);
}
writeFileSync(PAGE, text);
