// Launching the browsers the end-to-end tests use: Debian's chromium through playwright-core
// (it downloads no browser), and firefox-esr through geckodriver's WebDriver protocol, since
// playwright-core cannot drive firefox-esr.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Without the background-networking flags, chromium keeps trying hosts this sandbox cannot reach.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

export async function launchChromium() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** A minimal WebDriver client for firefox-esr: open(url), run(js) and close(). */
export async function launchFirefox() {
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
    capabilities: { alwaysMatch: { 'moz:firefoxOptions': { args: ['-headless'] } } },
  });
  const sid = session.sessionId;
  return {
    open: (url) => call('POST', `/session/${sid}/url`, { url }),
    run: (script) => call('POST', `/session/${sid}/execute/sync`, { script, args: [] }),
    async close() {
      await call('DELETE', `/session/${sid}`).catch(() => {});
      driver.kill();
      rmSync(profileRoot, { recursive: true, force: true });
    },
  };
}
