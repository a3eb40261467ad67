// A fresh playground for a test file: the repository served on a free port, the page open in
// headless Chromium and ready, and every page error and console error collected.
import { mkdirSync } from 'node:fs';
import { serve } from '../../scripts/serve.mjs';
import { launchChromium, PAGE_STATE } from './browsers.mjs';

/** Where the tests' screenshots go. */
export const SHOTS = new URL('../../target/screenshots/', import.meta.url).pathname;

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

export async function openPlayground(viewport = { width: 1280, height: 800 }, chromiumArgs = []) {
  mkdirSync(SHOTS, { recursive: true });
  const { server, url } = await serve(0);
  const browser = await launchChromium(chromiumArgs);
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(url);
  await untilStatus(page, /^Ready/);
  return {
    page, errors, url,
    shot: (name) => page.screenshot({ path: `${SHOTS}${name}.png` }),
    /** Another tab: a link opened there starts afresh, as one opened by someone else would. */
    newPage: () => browser.newPage({ viewport }),
    async close() {
      await browser.close();
      server.close();
    },
  };
}
