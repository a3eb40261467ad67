// Launching the browsers the end-to-end tests use: Debian's chromium through playwright-core
// (it downloads no browser); firefox-esr and WebKitGTK through the WebDriver protocol, since
// playwright-core can drive neither Debian build.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWebDriver } from './webdriver.mjs';

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

/** firefox-esr through geckodriver (see webdriver.mjs); downloads land in `downloadDir` when given. */
export function launchFirefox({ downloadDir } = {}) {
  const profileRoot = mkdtempSync(join(tmpdir(), 'gpt-ff-'));
  return openWebDriver({
    command: 'geckodriver',
    args: (port) => ['--port', String(port), '--profile-root', profileRoot],
    capabilities: { 'moz:firefoxOptions': { args: ['-headless'], prefs: downloadDir ? downloadPrefs(downloadDir) : {} } },
    cleanup: () => rmSync(profileRoot, { recursive: true, force: true }),
  });
}

/**
 * WebKitGTK's MiniBrowser (Safari's engine) through WebKitWebDriver, on a display of its own from
 * Xvfb. `env` reaches the browser (`JSC_useWasmRelaxedSIMD: '1'` switches on relaxed SIMD).
 */
export async function launchWebKit({ env = {} } = {}) {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const display = await new Promise((resolve, reject) => {
    xvfb.stdio[3].once('data', (d) => resolve(`:${String(d).trim()}`));
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}) before giving a display`)));
  });
  return openWebDriver({
    command: 'WebKitWebDriver',
    args: (port) => [`--port=${port}`],
    env: { DISPLAY: display, ...env },
    capabilities: {
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation', '--features=+StorageAPI,+StorageAPIEstimate'] },
    },
    cleanup: () => xvfb.kill(),
  });
}

const MINIBROWSER = process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

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
