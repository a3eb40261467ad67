// Launching the browsers the end-to-end tests use: Debian's chromium through playwright-core
// (it downloads no browser), and firefox-esr through geckodriver's WebDriver protocol, since
// playwright-core cannot drive firefox-esr.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a timed-out wait reports of the page (an expression for either browser): the status and
 * error lines, the stats line, the alerts, and the errors a test collected in `window.errors`.
 */
export const PAGE_STATE = `JSON.stringify({
  status: document.getElementById('status').textContent, error: document.getElementById('train-error').textContent,
  stats: document.getElementById('stats').textContent,
  alerts: [...document.querySelectorAll('[role=alert]')].map((a) => a.textContent).filter(Boolean), errors: window.errors,
})`;

// Without the background-networking flags, chromium keeps trying hosts this sandbox cannot reach.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

export async function launchChromium(extraArgs = []) {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/**
 * A minimal WebDriver client for firefox-esr: open(url), run(js), until(js), upload(css, path),
 * screenshot(path) and close(). Downloads land in `downloadDir` when given.
 */
export async function launchFirefox({ downloadDir } = {}) {
  const port = 4400 + Math.floor(Math.random() * 500);
  const profileRoot = mkdtempSync(join(tmpdir(), 'gpt-ff-'));
  const driver = spawn('geckodriver', ['--port', String(port), '--profile-root', profileRoot], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`geckodriver ${path}: ${JSON.stringify(json.value)}`);
    return json.value;
  };
  for (let i = 0; ; i++) {
    try { await call('GET', '/status'); break; } catch (e) {
      if (i > 100) throw new Error(`geckodriver did not start: ${e.message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const session = await call('POST', '/session', {
    capabilities: { alwaysMatch: { 'moz:firefoxOptions': { args: ['-headless'], prefs: downloadDir ? downloadPrefs(downloadDir) : {} } } },
  });
  const sid = session.sessionId;
  const run = (script) => call('POST', `/session/${sid}/execute/sync`, { script, args: [] });
  return {
    open: (url) => call('POST', `/session/${sid}/url`, { url }),
    run,
    /**
     * Waits until `expression` is truthy in the page, and returns it. On a timeout the error
     * tells what `explain` (an expression) says of the page then, so a failure in CI shows why.
     */
    async until(expression, { timeout = 30000, what = expression, explain } = {}) {
      const end = Date.now() + timeout;
      for (;;) {
        const value = await run(`return (${expression});`);
        if (value) return value;
        if (Date.now() > end) {
          const seen = explain ? `; the page showed ${await run(`return (${explain});`).catch((e) => e.message)}` : '';
          throw new Error(`timed out after ${timeout} ms waiting for ${what}${seen}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    /** Chooses the file at `path` in the file input matching `css`, as a user picking it would. */
    async upload(css, path) {
      const element = await call('POST', `/session/${sid}/element`, { using: 'css selector', value: css });
      await call('POST', `/session/${sid}/element/${Object.values(element)[0]}/value`, { text: path });
    },
    async screenshot(path) {
      writeFileSync(path, Buffer.from(await call('GET', `/session/${sid}/screenshot`), 'base64'));
    },
    async close() {
      await call('DELETE', `/session/${sid}`).catch(() => {});
      driver.kill();
      rmSync(profileRoot, { recursive: true, force: true });
    },
  };
}

/** Firefox's preferences that save every download to `dir` without asking. */
function downloadPrefs(dir) {
  return {
    'browser.download.folderList': 2,
    'browser.download.dir': dir,
    'browser.download.useDownloadDir': true,
    'browser.download.always_ask_before_handling_new_types': false,
    'browser.helperApps.neverAsk.saveToDisk': 'application/octet-stream',
  };
}
