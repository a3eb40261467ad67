// A fresh playground for a test file: the assembled site served under a sub-path on a free port,
// the page open in headless Chromium and ready, and every page error and console error collected.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { serveSite } from './site.mjs';
import { launchChromium, PAGE_STATE } from './browsers.mjs';

/** Where the tests' screenshots go. */
export const SHOTS = new URL('../../target/screenshots/', import.meta.url).pathname;

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Each accessibility rule (axe-core's defaults) `page` breaks, with its impact and first elements. */
export async function axeViolations(page) {
  await page.addScriptTag({ path: AXE });
  const { violations } = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Starts timing `page`'s frames; the function it returns stops and gives every gap between two
 * frames, in ms. bench/frames.mjs reports them; no test times them (a loaded machine's frames are
 * its own).
 */
export async function recordFrames(page) {
  await page.evaluate(() => {
    window.frameGaps = [];
    let last = null;
    const tick = (now) => {
      if (last !== null) window.frameGaps.push(now - last);
      last = now;
      if (!window.stopFrames) requestAnimationFrame(tick);
    };
    window.stopFrames = false;
    requestAnimationFrame(tick);
  });
  return () => page.evaluate(() => { window.stopFrames = true; return window.frameGaps; });
}


/** The step the stats line shows (0 before the first). */
export const stepShown = async (page) => Number((await page.locator('#stats').textContent()).match(/step ([\d,]+)/)?.[1].replace(/,/g, '') ?? 0);

/** Waits until the stats line shows step `n` or later. */
export const untilStep = (page, n, timeout = 30000) => page.waitForFunction(
  (n) => Number(document.getElementById('stats').textContent.match(/step ([\d,]+)/)?.[1].replace(/,/g, '') ?? 0) >= n,
  n, { timeout, polling: 50 });

/** Waits until the status line shows `text` (a string or RegExp); a timeout says what it showed. */
export async function untilStatus(page, text, timeout = 30000) {
  try {
    await page.getByRole('status').getByText(text).waitFor({ timeout });
  } catch (e) {
    const seen = await page.evaluate(PAGE_STATE).catch((err) => err.message);
    throw new Error(`${e.message.split('\n')[0]}, waiting for the status ${text}; the page showed ${seen}`);
  }
}

/**
 * Clicks Save checkpoint and reads the download's metadata: its `history` parsed, with the steps'
 * training `seconds` set apart (they differ between equal runs), and the file's `path`.
 */
export async function saveCheckpoint(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save checkpoint' }).click()]);
  const path = await download.path();
  return { ...checkpointMetadata(readFileSync(path)), path };
}

/** A checkpoint file's metadata, and its `history` parsed with the steps' `seconds` set apart. */
export function checkpointMetadata(file) {
  const metadata = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString('utf8')).__metadata__;
  const { seconds, ...history } = JSON.parse(metadata.history);
  return { metadata, history, seconds };
}

/**
 * Trains the tiny preset for `steps` steps; `press` is how the buttons are pressed (`click`, or
 * `tap` on a touch screen).
 */
export async function trainTiny(page, steps, press = 'click') {
  await page.getByLabel('Preset').selectOption('tiny');
  await page.getByLabel('Iterations', { exact: true }).fill(String(steps));
  await page.getByRole('button', { name: 'Train', exact: true })[press]();
  await untilStatus(page, new RegExp(`^Finished ${steps} steps`), 120000);
}

/** Trains the tiny preset (see `trainTiny`), then opens the views inside the model once they show the last step. */
export async function trainTinyAndLookInside(page, steps, press = 'click') {
  await trainTiny(page, steps, press);
  await page.getByText('6. Inside the model')[press]();
  await page.locator('#inside-status').getByText(new RegExp(`^At step ${steps}`)).waitFor();
}

/**
 * Trains the repeat task on its preset (the induction preset) for `steps` steps, then opens the
 * views inside the model at the last step with only view `key` open (the others cost nothing).
 */
export async function trainRepeatAndOpenView(page, steps, key, timeout = 240000) {
  const shown = steps.toLocaleString('en');
  await page.getByLabel('Corpus').selectOption('task:repeat');
  await page.getByLabel('Iterations', { exact: true }).fill(String(steps));
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await untilStatus(page, new RegExp(`^Finished ${shown} steps`), timeout);
  await page.getByText('6. Inside the model').click();
  await page.locator('#inside-status').getByText(new RegExp(`^At step (${steps}|${shown})\\b`)).waitFor();
  for (const details of await page.locator('#views > details').all()) {
    if (await details.getAttribute('data-view') !== key) await details.evaluate((d) => { d.open = false; });
  }
}

/** The page in Chromium, ready; `device` adds context options (a phone's `hasTouch`, `isMobile`). */
export async function openPlayground(viewport = { width: 1280, height: 800 }, chromiumArgs = [], device = {}) {
  mkdirSync(SHOTS, { recursive: true });
  const { server, url } = await serveSite();
  const browser = await launchChromium(chromiumArgs);
  const page = await browser.newPage({ viewport, ...device });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(url);
  await untilStatus(page, /^Ready/);
  return {
    page, errors, url,
    shot: (name) => page.screenshot({ path: `${SHOTS}${name}.png` }),
    /** Another tab: a link opened there starts afresh, as one opened by someone else would. */
    newPage: () => browser.newPage({ viewport, ...device }),
    async close() {
      await browser.close();
      server.close();
    },
  };
}
