// A fresh playground for a test file: the repository served on a free port, the page open in
// headless Chromium and ready, and every page error and console error collected.
import { mkdirSync } from 'node:fs';
import { serve } from '../../scripts/serve.mjs';
import { launchChromium } from './browsers.mjs';

/** Where the tests' screenshots go. */
export const SHOTS = new URL('../../target/screenshots/', import.meta.url).pathname;

export async function openPlayground(viewport = { width: 1280, height: 800 }, chromiumArgs = []) {
  mkdirSync(SHOTS, { recursive: true });
  const { server, url } = await serve(0);
  const browser = await launchChromium(chromiumArgs);
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(url);
  await page.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 30000 });
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
