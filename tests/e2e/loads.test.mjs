// The served page loads the wasm engine in Chromium and in Firefox.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { launchChromium, launchFirefox } from './browsers.mjs';

let server, url;
before(async () => ({ server, url } = await serve(0)));
after(() => server.close());

test('chromium: the page loads the wasm module and shows its version', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(url);
    await page.getByText(/^gpt-playground \d+\.\d+\.\d+$/).waitFor({ timeout: 20000 });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('firefox: the page loads the wasm module and shows its version', async () => {
  const ff = await launchFirefox();
  try {
    await ff.open(url);
    let text = '';
    for (let i = 0; i < 200 && !/\d/.test(text); i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = await ff.run("return document.getElementById('version').textContent");
    }
    assert.match(text, /^gpt-playground \d+\.\d+\.\d+$/);
  } finally {
    await ff.close();
  }
});
