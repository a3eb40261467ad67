#!/usr/bin/env node
// The pictures docs/circuits.md shows: each task's preset trained by the CLI (or taken from
// --from DIR, as task-NAME.safetensors), loaded into the page, its circuit found now under the symbol
// change (and the swap where sequences repeat), and the circuit view's figure saved as
// docs/images/circuit-NAME-CORRUPTION.png, with the view's summary printed beside it.
// Usage: node scripts/circuit-pictures.mjs [--from DIR]   (after cargo build --release -p gpt-cli and scripts/build.sh)
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { openPlayground, untilStatus } from '../tests/e2e/session.mjs';

const GPT = new URL('../target/release/gpt', import.meta.url).pathname;
const IMAGES = new URL('../docs/images/', import.meta.url).pathname;
const { values } = parseArgs({ options: { from: { type: 'string', default: new URL('../target/circuit-pictures/', import.meta.url).pathname } } });
const TASKS = { repeat: ['symbol', 'swap'], reverse: ['symbol'], sort: ['symbol'], addition: ['symbol'], modular: ['symbol'], brackets: ['symbol'], parity: ['symbol'], recall: ['symbol', 'swap'] };
mkdirSync(values.from, { recursive: true });

const session = await openPlayground({ width: 1280, height: 1000 });
try {
  const { page } = session;
  page.on('dialog', (dialog) => dialog.accept()); // each checkpoint replaces the model before it
  for (const [task, corruptions] of Object.entries(TASKS)) {
    const checkpoint = `${values.from}/task-${task}.safetensors`;
    if (!existsSync(checkpoint)) execFileSync(GPT, ['train', '--task', task, '--out', checkpoint], { stdio: 'ignore' });
    await page.getByLabel('Load checkpoint').setInputFiles(checkpoint);
    await untilStatus(page, /^Loaded a model at step/, 60000);
    const inside = page.getByText('6. Inside the model');
    if (!await page.locator('#views').isVisible()) await inside.click();
    for (const details of await page.locator('#views > details').all()) {
      const circuit = await details.getAttribute('data-view') === 'circuit';
      await details.evaluate((d, open) => { d.open = open; }, circuit);
    }
    // The loaded model's view shows what it recorded, not the last model's circuit.
    await page.waitForFunction(() => /^(Recorded|Evaluations record)/.test(document.getElementById('circuit-summary')?.textContent ?? ''), null, { timeout: 60000 });
    for (const corruption of corruptions) {
      const before = await page.locator('#circuit-summary').textContent();
      await page.getByLabel('Corruption').selectOption(corruption);
      await page.getByRole('button', { name: 'Find the circuit now' }).click();
      await page.waitForFunction((old) => {
        const text = document.getElementById('circuit-summary').textContent;
        return text !== old && /^\d+ pairs, e\.g\./.test(text) && !document.getElementById('circuit-find').disabled;
      }, before, { timeout: 120000 });
      const summary = page.locator('#circuit-summary');
      await page.locator('#circuit-figure').screenshot({ path: `${IMAGES}circuit-${task}-${corruption}.png` });
      console.log(`${task} (${corruption}): ${await summary.textContent()}\n  ${await page.locator('#circuit-figure').getAttribute('aria-label')}\n`);
    }
  }
} finally {
  await session.close();
}
