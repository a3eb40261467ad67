#!/usr/bin/env node
// The time a learner waits in the page for an attribution graph: the page in Chromium, a checkpoint
// loaded with its text, section 9 opened, Train transcoders pressed (the page's defaults: TopK,
// 8 features per channel, k = 32, 32 rows a step); the seconds to the last step, the transcoders'
// measures there, then the seconds from Trace to the drawn graph for a prompt of `--prompt-tokens`
// characters of the text (the median of `--traces`), and the memory: the graph's direct effects,
// and every worker's wasm memory as the section's lines say it; then what the kept edges' head
// loadings cost: the same graph asked of the engine with and without them, in turn (the median of
// `--traces` each). With several worker counts (`--workers 1,2`) each round runs them one after
// another, side by side.
// Usage: node bench/graph.mjs --checkpoint nano.safetensors --data ../shared/data/tinyshakespeare.txt
//        [--steps 200] [--workers auto|1,2] [--rounds 1] [--prompt-tokens 32] [--traces 3]
//        (after scripts/build.sh)
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { median } from './median.mjs';
import { sideBySide, withRun } from './page-rounds.mjs';

const { values } = parseArgs({
  options: {
    checkpoint: { type: 'string' }, data: { type: 'string' }, steps: { type: 'string', default: '200' },
    workers: { type: 'string', default: 'auto' }, rounds: { type: 'string', default: '1' },
    'prompt-tokens': { type: 'string', default: '32' }, traces: { type: 'string', default: '3' },
  },
});
if (!values.checkpoint || !values.data) throw new Error('give --checkpoint and --data (the text it trained on)');
const text = readFileSync(values.data, 'utf8');
const prompt = text.slice(text.length - 20000).split('\n').find((line) => line.length >= Number(values['prompt-tokens'])).slice(0, Number(values['prompt-tokens']));

/** The seconds the engine takes to answer the graph request with head loadings and without, `times` of each in turn (their medians). */
async function headsCost(page, times) {
  const seconds = await page.evaluate(async ({ prompt, times }) => {
    const { on, send } = await import('./engine.js');
    let answered = () => {};
    on('transcoders', (data) => data.asked === 'graph' && answered());
    const timed = async (heads) => {
      const done = new Promise((resolve) => { answered = resolve; });
      const began = performance.now();
      send({ type: 'transcoders', request: { do: 'graph', prompt, node_threshold: 0.8, edge_threshold: 0.98, heads } });
      await done;
      return (performance.now() - began) / 1000;
    };
    const out = { true: [], false: [] };
    for (let i = 0; i < times; i++) for (const heads of [true, false]) out[heads].push(await timed(heads));
    return out;
  }, { prompt, times });
  return [median(seconds.true), median(seconds.false)];
}

/** One round on a fresh page with `workers`. */
function round(workers) {
  return withRun({ ...values, workers, section: '9. Attribution graph' }, async (page) => {
    await page.locator('#graph-train:not([disabled])').waitFor({ timeout: 60000 });
    await page.getByLabel('Transcoder steps').fill(values.steps);
    const start = Date.now();
    await page.getByRole('button', { name: 'Train transcoders' }).click();
    // A checkpoint's own finished transcoders may show first: wait for the new ones to begin.
    await page.waitForFunction(() => {
      const [, step, steps] = document.getElementById('graph-status').textContent.match(/^Step (\d+) of (\d+)/) ?? [];
      return step !== undefined && Number(step) < Number(steps);
    }, null, { timeout: 60000 });
    let memory = 0;
    for (;;) {
      const [status, error] = await Promise.all(['#graph-status', '#graph-error'].map((id) => page.locator(id).textContent()));
      if (error) throw new Error(error);
      memory = Math.max(memory, Number(status.match(/The workers hold (\d+) MiB/)?.[1] ?? 0));
      if (new RegExp(`^Step ${values.steps} of ${values.steps}:`).test(status)) break;
      await page.waitForTimeout(200);
    }
    const trained = (Date.now() - start) / 1000;
    const measures = await page.locator('#graph-measures').textContent();
    const traces = [];
    let summary = '';
    for (let t = 0; t < Number(values.traces); t++) {
      await page.getByLabel('Trace the next token of').fill(prompt);
      const began = Date.now();
      await page.getByRole('button', { name: 'Trace', exact: true }).click();
      await page.waitForFunction(() => /features fire on/.test(document.getElementById('graph-summary').textContent), null, { timeout: 120000 });
      traces.push((Date.now() - began) / 1000);
      summary = await page.locator('#graph-summary').textContent();
      await page.evaluate(() => { document.getElementById('graph-summary').textContent = ''; });
    }
    const [withHeads, without] = await headsCost(page, Number(values.traces));
    return { trained, measures, trace: median(traces), summary, memory, withHeads, without };
  });
}

const counts = values.workers.split(',');
const results = await sideBySide(counts, Number(values.rounds), round,
  (r) => `transcoders ${values.steps} steps in ${r.trained.toFixed(1)} s (${r.measures}); a ${values['prompt-tokens']}-token graph in `
    + `${r.trace.toFixed(2)} s (${r.summary.split('. It explains')[0]}); the workers' wasm memory up to ${r.memory} MiB while training; `
    + `asked of the engine, ${r.withHeads.toFixed(2)} s with head loadings and ${r.without.toFixed(2)} s without`);
for (const w of counts) {
  const heads = median(results[w].map((r) => r.withHeads - r.without));
  console.log(`median, workers ${w}: transcoders in ${median(results[w].map((r) => r.trained)).toFixed(1)} s, a graph in ${median(results[w].map((r) => r.trace)).toFixed(2)} s, `
    + `its head loadings ${heads.toFixed(2)} s of it`);
}
