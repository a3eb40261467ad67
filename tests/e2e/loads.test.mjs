// The served page loads the wasm engine in Chromium and in Firefox, and falls back to the SIMD128
// build when the browser refuses the relaxed one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, serveSite } from './site.mjs';
import { launchChromium, launchFirefox } from './browsers.mjs';

let server, url;
before(async () => ({ server, url } = await serveSite()));
after(() => server.close());

/** Runs `check(page, errors)` on a fresh Chromium page that collects its page errors, then closes it. */
async function inChromium(check) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await check(page, errors);
  } finally {
    await browser.close();
  }
}

test('chromium: the page loads the wasm module and shows its version', () => inChromium(async (page, errors) => {
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(url);
  await page.getByText(/^gpt-playground \d+\.\d+\.\d+$/).waitFor({ timeout: 20000 });
  assert.equal(await page.locator('#engine').textContent(), 'wasm SIMD128 + relaxed FMA');
  assert.deepEqual(errors, []);
}));

test('chromium: the site opens from its root under a sub-path, as a static host serves it', () => inChromium(async (page) => {
  await page.goto(new URL('..', url).href); // the site's index.html, at /gpt-playground/
  await page.waitForURL(`**${BASE}web/`);
  await page.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 20000 });
  assert.equal((await page.request.get(new URL('/web/', url).href)).status(), 404, 'nothing is served outside the sub-path');
}));

test('chromium: a relaxed-SIMD build the browser refuses falls back to SIMD128, which trains', () => inChromium(async (page, errors) => {
  // The relaxed module's bytes, garbled: it passes the probe, then fails to compile (as WebKit's
  // refusal of relaxed_min did), in the page and in its workers.
  await page.context().route('**/pkg-relaxed/*.wasm', (route) => route.fulfill({ body: Buffer.from('not wasm at all'), contentType: 'application/wasm' }));
  await page.goto(url);
  await page.getByText(/^wasm SIMD128 \(the browser refused the relaxed-SIMD build: .+\)$/).waitFor({ timeout: 20000 });
  await page.getByRole('status').getByText(/^Ready/).waitFor({ timeout: 20000 });
  await page.getByLabel('Warmup steps', { exact: true }).fill('2');
  await page.getByLabel('Iterations', { exact: true }).fill('20');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await page.getByRole('status').getByText(/^Finished 20 steps/).waitFor({ timeout: 60000 });
  assert.deepEqual(errors, []);
}));

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
