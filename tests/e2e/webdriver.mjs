// A minimal W3C WebDriver client, for the browsers playwright-core cannot drive (firefox-esr
// through geckodriver, WebKitGTK's MiniBrowser through WebKitWebDriver): node's fetch is enough.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';

const LOGS = new URL('../../target/webdriver-logs/', import.meta.url).pathname;

/**
 * Starts `command` (a WebDriver server) with `args(port)` and `env`, opens a session with
 * `capabilities`, and returns the page's handle: open(url), run(js), until(js), upload(css, path),
 * screenshot(path) and close(). `cleanup` runs after the driver has stopped.
 */
export async function openWebDriver({ command, args, env = {}, capabilities, cleanup = () => {} }) {
  const port = await freePort();
  // The driver's and browser's own output, for when a browser dies under a test.
  mkdirSync(LOGS, { recursive: true });
  const log = openSync(`${LOGS}${command}-${port}.log`, 'w');
  const driver = spawn(command, args(port), { stdio: ['ignore', log, log], env: { ...process.env, ...env } });
  closeSync(log);
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${command} ${path}: ${JSON.stringify(json.value)}`);
    return json.value;
  };
  for (let i = 0; ; i++) {
    try { await call('GET', '/status'); break; } catch (e) {
      if (i > 100) throw new Error(`${command} did not start: ${e.message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const { sessionId: sid } = await call('POST', '/session', { capabilities: { alwaysMatch: capabilities } });
  const run = (script) => call('POST', `/session/${sid}/execute/sync`, { script, args: [] });
  return {
    open: (url) => call('POST', `/session/${sid}/url`, { url }),
    reload: () => call('POST', `/session/${sid}/refresh`, {}),
    run,
    /** Runs `script` as an async function's body: its awaited return value comes back. */
    runAsync: (script) => call('POST', `/session/${sid}/execute/async`, {
      script: `const done = arguments[arguments.length - 1]; (async () => { ${script} })().then(done, (e) => done({ error: String(e) }));`,
      args: [],
    }),
    /**
     * Waits until `expression` is truthy in the page, and returns it. On a timeout the error
     * tells what `explain` (an expression) says of the page then, so a failure in CI shows why.
     */
    async until(expression, { timeout = 30000, what = expression, explain } = {}) {
      const end = Date.now() + timeout;
      for (;;) {
        const value = await run(`return (${expression});`).catch((e) => (Date.now() > end ? Promise.reject(e) : null));
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
      cleanup();
    },
  };
}

/** A port nothing listens on now, as the system hands them out. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
