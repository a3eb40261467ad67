#!/usr/bin/env node
// Training speed in headless Chromium, in a Web Worker as the page runs it.
// Usage: node scripts/bench-browser.mjs [preset] [iters]   (after wasm-pack build --target web --release)
import { serve } from './serve.mjs';
import { launchChromium } from '../tests/e2e/browsers.mjs';

const [preset = 'nano-cpu', iters = '30'] = process.argv.slice(2);
const { server, url } = await serve(0);
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(new URL('/web/', url).href);
  const result = await page.evaluate(({ preset, iters }) => new Promise((resolve) => {
    const worker = new Worker('/scripts/bench-worker.js', { type: 'module' });
    worker.onmessage = ({ data }) => resolve(data);
    worker.onerror = (e) => resolve({ error: e.message });
    worker.postMessage({ preset, iters });
  }), { preset, iters: Number(iters) });
  if (result.error) throw new Error(result.error);
  console.log(`${preset} in Chromium (wasm, worker): ${result.ms_per_iter.toFixed(1)} ms/iter, `
    + `${Math.round(result.tokens_per_s)} tokens/s (median of ${result.iters} steps)`);
  console.log(JSON.stringify({ browser: 'chromium', ...result }));
} finally {
  await browser.close();
  server.close();
}
