#!/usr/bin/env node
// The attribution graphs docs/circuits.md shows, as the page draws them: three runs with their
// transcoders (taken from --from DIR as graph-NAME.safetensors, or trained by the CLI with the
// commands below), each loaded into the page, a prompt traced, the graph saved as
// docs/images/graph-NAME.png with the page's summary printed beside it; then the strongest
// features at the last position knocked out, and each explained token's change, predicted by the
// graph and real, printed. Nodes come most influential first.
// Usage: node scripts/graph-pictures.mjs [--from DIR]   (after cargo build --release -p gpt-cli and scripts/build.sh)
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { openPlayground, untilStatus } from '../tests/e2e/session.mjs';

const GPT = new URL('../target/release/gpt', import.meta.url).pathname;
const IMAGES = new URL('../docs/images/', import.meta.url).pathname;
const SHAKESPEARE = new URL('../../shared/data/tinyshakespeare.txt', import.meta.url).pathname;
const { values } = parseArgs({ options: { from: { type: 'string', default: new URL('../target/graph-pictures/', import.meta.url).pathname } } });
mkdirSync(values.from, { recursive: true });

/** Each run: how the CLI trains it and its transcoders, its text (a task makes its own), the prompt, the features knocked out. */
const RUNS = {
  induction: {
    train: ['train', '--task', 'repeat'], transcoders: ['--steps', '300'],
    prompt: 'snqogruxahvfyikpsnqogruxa', knock: 4,
  },
  modular: {
    train: ['train', '--task', 'modular'], transcoders: ['--steps', '3000', '--lr', '3e-3'],
    prompt: '78+25=', knock: 3,
  },
  shakespeare: {
    train: ['train', '--preset', 'nano-cpu', '--data', SHAKESPEARE], transcoders: ['--data', SHAKESPEARE, '--steps', '200'],
    text: SHAKESPEARE, prompt: 'No, good madam, pardon me; indeed, I will not', knock: 2,
  },
};

/** The run's checkpoint with its transcoders, trained by the CLI if --from does not hold it. */
function checkpoint(name, run) {
  const file = `${values.from}/graph-${name}.safetensors`;
  if (!existsSync(file)) {
    const model = `${values.from}/model-${name}.safetensors`;
    execFileSync(GPT, [...run.train, '--out', model], { stdio: 'inherit' });
    execFileSync(GPT, ['features', '--checkpoint', model, '--transcoders', ...run.transcoders, '--save', file], { stdio: 'inherit' });
  }
  return file;
}

const session = await openPlayground({ width: 1600, height: 1000 });
try {
  const { page } = session;
  page.on('dialog', (dialog) => dialog.accept()); // each checkpoint replaces the model before it
  for (const [name, run] of Object.entries(RUNS)) {
    if (run.text) await page.getByLabel('Upload .txt').setInputFiles(run.text); // its text, for the measures, labels and cards
    await page.getByLabel('Load checkpoint').setInputFiles(checkpoint(name, run));
    await untilStatus(page, /^Loaded a model at step/, 60000);
    if (!await page.locator('#graph').evaluate((d) => d.open)) await page.getByText('9. Attribution graph').click();
    await page.locator('#graph-status').getByText(/^Step (\d+) of \1:/).waitFor({ timeout: 180000 }).catch((e) => {
      throw new Error(`${name}'s transcoders did not come back: ${e.message}`);
    });
    const before = await page.locator('#graph-summary').textContent();
    await page.getByLabel('Trace the next token of').fill(run.prompt);
    await page.getByRole('button', { name: 'Trace', exact: true }).click();
    await page.waitForFunction((old) => {
      const text = document.getElementById('graph-summary').textContent;
      return text !== old && /features fire on/.test(text);
    }, before, { timeout: 120000 });
    // The whole graph, not the part its scrolling box shows.
    await page.locator('.graph-canvas').evaluate((c) => { c.style.overflow = 'visible'; c.style.maxWidth = 'none'; });
    await page.locator('#graph-svg').screenshot({ path: `${IMAGES}graph-${name}.png` });
    console.log(`${name}: ${await page.locator('#graph-measures').textContent()}\n  ${await page.locator('#graph-summary').textContent()}`);
    const last = await page.locator('.graph-node.token').count() - 1;
    const strongest = page.locator(`.graph-node.feature[data-node$="_${last}"]`);
    const knocked = Math.min(run.knock, await strongest.count());
    for (let i = 0; i < knocked; i++) await strongest.nth(i).click();
    console.log(`  knocked out: ${(await Promise.all([...Array(knocked).keys()].map((i) => strongest.nth(i).getAttribute('aria-label')))).join('; ')}`);
    await page.getByRole('button', { name: 'Knock picked out' }).click();
    await page.locator('#graph-effects tr').nth(1).waitFor();
    for (const row of await page.locator('#graph-effects tr').all()) console.log(`  ${(await row.locator('th, td').allTextContents()).join(' | ')}`);
    await page.locator('.graph-canvas').evaluate((c) => { c.style.overflow = ''; c.style.maxWidth = ''; });
  }
} finally {
  await session.close();
}
