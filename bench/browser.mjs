#!/usr/bin/env node
// Training speed of the real page in a browser, as a user gets it: the bundled Shakespeare, a
// preset, K workers, Train; tokens/s from the step counter over a timed window after a warm-up.
// Usage: node bench/browser.mjs [--browser chromium|firefox|webkit] [--preset nano-cpu] [--workers 1,2]
//        [--warmup 4] [--seconds 12] [--eval-every N] [--inside] [--optimizer adamw|muon] [--rounds 1 | --interleave N]
//        (after scripts/build.sh)
// With --rounds N the worker counts alternate N times, each on a fresh page, and the last line
// gives each count's median and its ratio to the first count's: the machine is shared, so a
// speed-up is read from counts measured side by side, never from one run.
// With --interleave N one page trains throughout while its Workers choice alternates between the
// two counts N times, each window timed after the warm-up; the last line gives the ratio of each
// window of the second count to the first count's windows beside it, and their median.
// e.g. --workers 1,2 --interleave 15 --warmup 1.5 --seconds 4
// --eval-every evaluates as training goes (by default not inside the window); --inside opens
// "Inside the model", whose views refresh at each evaluation.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { serve } from '../scripts/serve.mjs';
import { median } from './median.mjs';
import { launchChromium, launchFirefox, launchWebKit } from '../tests/e2e/browsers.mjs';

/** In the page: picks a corpus, preset and worker count, and presses Train (a sync script). */
const START = `
  const [corpus, preset, workers, iters, evalEvery, inside, optimizer] = arguments;
  const set = (el, value) => { el.value = value; for (const t of ['input', 'change']) el.dispatchEvent(new Event(t, { bubbles: true })); };
  const form = document.getElementById('config');
  set(document.getElementById('corpus'), corpus);
  set(document.getElementById('preset'), preset);
  set(form.elements.workers, workers);
  set(form.elements.max_iters, iters);
  set(form.elements.eval_interval, evalEvery);
  set(form.elements.optimizer, optimizer);
  document.getElementById('inside').open = inside;
  return true;`;
const PRESS = `const b = document.getElementById('train'); if (b.disabled) return false; b.click(); return true;`;
const STARTED = `return /Training/.test(document.getElementById('status').textContent)
  && /step [1-9]/.test(document.getElementById('stats').textContent);`;
/**
 * Logs the step counter each time a progress report changes it, with the page's own clock, so a
 * window runs from one report to another and the bench reads the page twice, not in a poll (a
 * poll lands on the page's main thread and the browser's, which two workers need).
 */
const WATCH = `const stats = document.getElementById('stats');
  window.benchReports = [];
  new MutationObserver(() => {
    const m = stats.textContent.match(/step ([\\d,]+).* on (\\d+) worker/);
    if (m) window.benchReports.push({ step: Number(m[1].replace(/,/g, '')), workers: Number(m[2]), t: performance.now() });
  }).observe(stats, { childList: true, characterData: true, subtree: true });
  return performance.now();`;
const REPORTS = `return { reports: window.benchReports, status: document.getElementById('status').textContent };`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A driver with one method, run(script, ...args) → value, over a fresh page at `url`. */
async function open(browser, url) {
  const webDriver = { firefox: launchFirefox, webkit: launchWebKit }[browser];
  if (webDriver) {
    const driver = await webDriver();
    await driver.open(url);
    return { run: (script, ...args) => driver.run(`return (function () { ${script} }).apply(null, ${JSON.stringify(args)})`), close: () => driver.close() };
  }
  const chromium = await launchChromium();
  const page = await chromium.newPage();
  await page.goto(url);
  return { run: (script, ...args) => page.evaluate(([s, a]) => new Function(s).apply(null, a), [script, args]), close: () => chromium.close() };
}

async function waitFor(driver, script, what, seconds = 60) {
  for (let i = 0; i < seconds * 10; i++) {
    const value = await driver.run(script);
    if (value) return value;
    await sleep(100);
  }
  const state = await driver.run(`return [document.getElementById('status').textContent, document.getElementById('train-error').textContent, document.getElementById('config-error').textContent, document.getElementById('stats').textContent].join(' | ')`);
  throw new Error(`timed out waiting for ${what}; the page says: ${state}`);
}

/** Opens a page, sets it up as `options` say and presses Train: the driver, settings and the page's clock at the start. */
async function startTraining({ browser, preset, workers, evalEvery, inside, optimizer }, url) {
  const driver = await open(browser, url);
  try {
    await waitFor(driver, `return document.getElementById('status').textContent.startsWith('Ready')`, 'the page');
    const presets = await driver.run(`return [...document.getElementById('preset').options].map((o) => JSON.parse(o.dataset.preset))`);
    const { settings } = presets.find((p) => p.name === preset);
    await driver.run(START, 'shakespeare', preset, workers, 100000, evalEvery, inside, optimizer);
    await waitFor(driver, PRESS, 'the Train button');
    await waitFor(driver, STARTED, 'training to start');
    return { driver, settings, started: await driver.run(WATCH) };
  } catch (e) {
    await driver.close();
    throw e;
  }
}

/** The page's progress reports so far; throws if training stopped. */
async function readReports(driver) {
  const { reports, status } = await driver.run(REPORTS);
  if (!/Training/.test(status)) throw new Error(`training stopped: ${status}`);
  return reports;
}

/** Tokens per second on `workers` workers from the first report at or after `from` (page ms) to the last one before `to`. */
function speed(reports, settings, workers, from, to = Infinity) {
  const inWindow = reports.filter((r) => r.t >= from && r.t <= to);
  const [first, last] = [inWindow[0], inWindow.at(-1)];
  if (!first || last.step <= first.step) throw new Error(`too few progress reports in the window: ${JSON.stringify(reports)}`);
  if (inWindow.some((r) => r.workers !== workers)) throw new Error(`asked for ${workers} workers, the page trained on ${last.workers}`);
  const tokens = (last.step - first.step) * settings.train.batch_size * settings.model.block_size;
  return { steps: last.step - first.step, tokens_per_s: Math.round(tokens / ((last.t - first.t) / 1000)) };
}

/** Tokens per second of one training session with `workers` workers. */
export async function measure({ browser = 'chromium', preset = 'nano-cpu', workers = 1, warmup = 4, seconds = 12, evalEvery = 100000, inside = false, optimizer = 'adamw' }, url) {
  const { driver, settings, started } = await startTraining({ browser, preset, workers, evalEvery, inside, optimizer }, url);
  try {
    await sleep((warmup + seconds) * 1000);
    const result = speed(await readReports(driver), settings, workers, started + warmup * 1000);
    return { browser, preset, optimizer, workers, inside, eval_every: evalEvery, ...result };
  } finally {
    await driver.close();
  }
}

/**
 * One page whose Workers choice alternates between `counts` (two of them) `windows` times, as a
 * user would switch it mid-run: each window's tokens/s after `warmup` s (the new workers start
 * and warm up). Both counts then see the same minutes of a shared machine.
 */
async function interleave({ browser, preset, counts, windows, warmup, seconds, evalEvery, inside, optimizer }, url) {
  const { driver, settings, started } = await startTraining({ browser, preset, workers: counts[0], evalEvery, inside, optimizer }, url);
  try {
    const flips = [started];
    await sleep((warmup + seconds) * 1000);
    for (let w = 1; w < windows; w++) {
      flips.push(await driver.run(`const el = document.getElementById('config').elements.workers; el.value = arguments[0];
        el.dispatchEvent(new Event('change', { bubbles: true })); return performance.now();`, counts[w % 2]));
      await sleep((warmup + seconds) * 1000);
    }
    const reports = await readReports(driver);
    return flips.map((t, w) => ({ workers: counts[w % 2], ...speed(reports, settings, counts[w % 2], t + warmup * 1000, t + (warmup + seconds) * 1000) }));
  } finally {
    await driver.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: {
    browser: { type: 'string', default: 'chromium' }, preset: { type: 'string', default: 'nano-cpu' },
    workers: { type: 'string', default: '1,2' }, warmup: { type: 'string', default: '4' }, seconds: { type: 'string', default: '12' },
    'eval-every': { type: 'string', default: '100000' }, inside: { type: 'boolean', default: false },
    optimizer: { type: 'string', default: 'adamw' }, rounds: { type: 'string', default: '1' }, interleave: { type: 'string' },
  } });
  const counts = values.workers.split(',').map(Number);
  const options = { ...values, warmup: Number(values.warmup), seconds: Number(values.seconds), evalEvery: Number(values['eval-every']) };
  const { server, url } = await serve(0);
  try {
    if (values.interleave) {
      if (counts.length !== 2) throw new Error('--interleave alternates two worker counts: --workers A,B');
      const windows = await interleave({ ...options, counts, windows: Number(values.interleave) }, url);
      windows.forEach((w) => console.log(JSON.stringify(w)));
      const ratios = besideRatios(windows, counts[1]);
      console.log(JSON.stringify({ windows: windows.length, workers: counts, ratios, median_ratio: median(ratios) }));
    } else {
      await rounds(options, counts, Number(values.rounds), url);
    }
  } finally {
    server.close();
  }
}

/** Each window of `workers` against the mean of the other count's windows beside it. */
function besideRatios(windows, workers) {
  return windows.flatMap((w, i) => {
    if (w.workers !== workers) return [];
    const beside = [windows[i - 1], windows[i + 1]].filter(Boolean).map((n) => n.tokens_per_s);
    return [+(w.tokens_per_s / (beside.reduce((a, b) => a + b) / beside.length)).toFixed(3)];
  });
}

/** `count` rounds, each count on a fresh page in turn, and each count's median ratio to the first's. */
async function rounds(options, counts, count, url) {
  const speeds = new Map(counts.map((c) => [c, []]));
  for (let round = 0; round < count; round++) {
    for (const workers of counts) {
      const result = await measure({ ...options, workers }, url);
      speeds.get(workers).push(result.tokens_per_s);
      console.log(JSON.stringify(result));
    }
  }
  if (count > 1) {
    const base = speeds.get(counts[0]);
    const summary = counts.map((c) => {
      const ratios = speeds.get(c).map((s, i) => +(s / base[i]).toFixed(3));
      return { workers: c, median_tokens_per_s: median(speeds.get(c)), ratios, median_ratio: median(ratios) };
    });
    console.log(JSON.stringify({ rounds: count, summary }));
  }
}
