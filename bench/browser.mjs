#!/usr/bin/env node
// Training speed of the real page in a browser, as a user gets it: the bundled Shakespeare, a
// preset, K workers, Train; tokens/s from the step counter over a timed window after a warm-up.
// Usage: node bench/browser.mjs [--browser chromium|firefox|webkit] [--preset nano-cpu] [--workers 1,2]
//        [--warmup 4] [--seconds 12] [--eval-every N] [--inside] [--optimizer adamw|muon] [--rounds 1]
//        (after scripts/build.sh)
// With --rounds N the worker counts alternate N times, each on a fresh page, and the last line
// gives each count's median and its ratio to the first count's: the machine is shared, so a
// speed-up is read from counts measured side by side, never from one run.
// --eval-every evaluates as training goes (by default not inside the window); --inside opens
// "Inside the model", whose views refresh at each evaluation.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { serve } from '../scripts/serve.mjs';
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

/** Tokens per second of one training session with `workers` workers. */
export async function measure({ browser = 'chromium', preset = 'nano-cpu', workers = 1, warmup = 4, seconds = 12, evalEvery = 100000, inside = false, optimizer = 'adamw' }, url) {
  const driver = await open(browser, url);
  try {
    await waitFor(driver, `return document.getElementById('status').textContent.startsWith('Ready')`, 'the page');
    const presets = await driver.run(`return [...document.getElementById('preset').options].map((o) => JSON.parse(o.dataset.preset))`);
    const { settings } = presets.find((p) => p.name === preset);
    await driver.run(START, 'shakespeare', preset, workers, 100000, evalEvery, inside, optimizer);
    await waitFor(driver, PRESS, 'the Train button');
    await waitFor(driver, STARTED, 'training to start');
    const started = await driver.run(WATCH);
    await sleep((warmup + seconds) * 1000);
    const { reports, status } = await driver.run(REPORTS);
    if (!/Training/.test(status)) throw new Error(`training stopped: ${status}`);
    // From the first report after the warm-up to the last one.
    const first = reports.find((r) => r.t >= started + warmup * 1000);
    const last = reports.at(-1);
    if (!first || last.step <= first.step) throw new Error(`too few progress reports in the window: ${JSON.stringify(reports)}`);
    if (last.workers !== workers) throw new Error(`asked for ${workers} workers, the page trained on ${last.workers}`);
    const tokens = (last.step - first.step) * settings.train.batch_size * settings.model.block_size;
    return { browser, preset, optimizer, workers, inside, eval_every: evalEvery, steps: last.step - first.step, tokens_per_s: Math.round(tokens / ((last.t - first.t) / 1000)) };
  } finally {
    await driver.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: {
    browser: { type: 'string', default: 'chromium' }, preset: { type: 'string', default: 'nano-cpu' },
    workers: { type: 'string', default: '1,2' }, warmup: { type: 'string', default: '4' }, seconds: { type: 'string', default: '12' },
    'eval-every': { type: 'string', default: '100000' }, inside: { type: 'boolean', default: false },
    optimizer: { type: 'string', default: 'adamw' }, rounds: { type: 'string', default: '1' },
  } });
  const counts = values.workers.split(',').map(Number);
  const speeds = new Map(counts.map((c) => [c, []]));
  const { server, url } = await serve(0);
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const workers of counts) {
        const options = { ...values, workers, warmup: Number(values.warmup), seconds: Number(values.seconds), evalEvery: Number(values['eval-every']) };
        const result = await measure(options, url);
        speeds.get(workers).push(result.tokens_per_s);
        console.log(JSON.stringify(result));
      }
    }
    if (Number(values.rounds) > 1) {
      const median = (xs) => { const s = [...xs].sort((a, b) => a - b), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };
      const base = speeds.get(counts[0]);
      const summary = counts.map((c) => {
        const ratios = speeds.get(c).map((s, i) => +(s / base[i]).toFixed(3));
        return { workers: c, median_tokens_per_s: median(speeds.get(c)), ratios, median_ratio: median(ratios) };
      });
      console.log(JSON.stringify({ rounds: Number(values.rounds), summary }));
    }
  } finally {
    server.close();
  }
}
