// A long run in Chromium, watched for memory: the tiny preset on the names corpus for `steps`
// steps with the page's two workers, a sample generated and the attention text changed every
// `every` steps while it trains (the attention maps and next tokens also refresh on their own).
// At each of those points it records the wasm memory of every worker (shown in the stats line)
// and the page's JS heap after a forced garbage collection.
import { openPlayground, untilStep, untilStatus } from './session.mjs';

const MiB = 2 ** 20;

export async function soak({ steps, every, log = () => {} }) {
  const session = await openPlayground(undefined, ['--js-flags=--expose-gc', '--enable-precise-memory-info']);
  const { page } = session;
  const stats = () => page.locator('#stats').textContent();
  try {
    await page.getByLabel('Corpus').selectOption('names');
    await page.getByLabel('Preset').selectOption('tiny');
    await page.getByLabel('Iterations').fill(String(steps));
    await page.getByLabel('Prompt').fill('an');
    await page.getByRole('button', { name: 'Train' }).click();
    const samples = [];
    for (let next = every; next <= steps; next += every) {
      await untilStep(page, next, 120000);
      await page.getByRole('button', { name: 'Generate' }).click();
      await page.getByRole('button', { name: 'Generate' }).and(page.locator(':enabled')).waitFor({ timeout: 60000 });
      await page.getByRole('button', { name: 'Corpus snippet' }).click();
      const text = await stats();
      const step = Number(text.match(/step ([\d,]+)/)[1].replace(/,/g, ''));
      const wasm = Number(text.match(/memory ([\d.]+) MiB/)[1]);
      const heap = await page.evaluate(() => { gc(); return performance.memory.usedJSHeapSize; }) / MiB;
      samples.push({ step, wasm, heap });
      log(`step ${step}: wasm ${wasm.toFixed(1)} MiB, JS heap ${heap.toFixed(1)} MiB`);
    }
    await untilStatus(page, new RegExp(`^Finished ${steps.toLocaleString('en-US')} steps`), 120000);
    return samples;
  } finally {
    await session.close();
  }
}

/**
 * Growth after warm-up (the first sample at or past `warmup` steps) to the end, in MiB. Nothing a
 * run keeps grows with its steps but the loss history (a few bytes a step) and up to 40 time-lapse
 * snapshots, so after warm-up both figures should hold flat; the bounds leave room for the
 * allocator's growth and the garbage collector's timing, and are far below what keeping one
 * step's gradients (0.4 MiB for tiny) at every step or every sample would add. The wasm memory
 * takes one step of about 2 MiB between the samples near steps 240 and 450 (1.2 to 2.3 MiB in
 * six quiet runs on 2026-11-29, the same before and after that day's changes), and none after;
 * within the whole suite on a loaded machine, one worker's took two (3.3 MiB from step 300 to
 * 600, against 1.2 to 1.3 MiB in three quiet one-worker runs the same evening).
 */
export function growth(samples, warmup) {
  const start = samples.find((s) => s.step >= warmup);
  const end = samples.at(-1);
  return { start, end, wasm: end.wasm - start.wasm, heap: end.heap - start.heap };
}

export const BOUNDS = { wasm: 4, heap: 4 };
