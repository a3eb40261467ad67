// Safari's engine: WebKitGTK's MiniBrowser through WebKitWebDriver, under Xvfb. A first visit,
// training with a pause, a sample, 1 and 2 workers bit for bit, a checkpoint saved and loaded, a
// reload that restores the run, the views that test what a head does (testing-views.mjs), the
// walk through the model, features trained in the tab (feature-views.mjs), the toy model of
// superposition (superposition-views.mjs), a lesson (lesson-views.mjs), and the page with WebKit's
// relaxed SIMD switched on (it refuses the relaxed build, and the page falls back and trains).
// Screenshots are prefixed "webkit-".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveSite } from './site.mjs';
import { launchWebKit } from './browsers.mjs';
import { drivenPage } from './driven-page.mjs';
import { checkpointMetadata, SHOTS } from './session.mjs';
import { checkTestingViews } from './testing-views.mjs';
import { checkWalk } from './walk-views.mjs';
import { checkFeatures, checkGraph } from './feature-views.mjs';
import { checkSuperposition } from './superposition-views.mjs';
import { checkLesson } from './lesson-views.mjs';

// WebDriver has no downloads in WebKitGTK: the page's download link is kept, and its file read.
const KEEP_DOWNLOADS = `window.downloads = [];
  HTMLAnchorElement.prototype.click = function () { downloads.push({ name: this.download, href: this.href }); };`;

const NAMES_READY = "/vocabulary of 28 distinct characters/.test(document.getElementById('text-summary').textContent) && !named('Train').disabled";

let server, url, wk, page, folder;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  ({ server, url } = await serveSite());
  folder = mkdtempSync(join(tmpdir(), 'gpt-webkit-'));
  wk = await launchWebKit();
  page = drivenPage(wk, 'webkit');
  await page.open(url);
  await page.run(KEEP_DOWNLOADS);
});
after(async () => {
  await wk?.close();
  server?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Saves a checkpoint as a person would, and returns the file's bytes. */
async function saveCheckpoint() {
  const before = await page.run('return downloads.length;');
  await page.run("named('Save checkpoint').click();");
  await page.until(`downloads.length > ${before}`, { what: 'the checkpoint download' });
  const base64 = await wk.runAsync(`const blob = await (await fetch(downloads.at(-1).href)).blob();
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let s = ''; for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return btoa(s);`);
  return Buffer.from(base64, 'base64');
}

/** Trains the tiny preset on names from the start with `workers` workers, for `steps` steps. */
async function trainWith(workers, steps) {
  await page.run(`set('Workers', '${workers}'); set('Iterations', '${steps}'); set('Warmup steps', '5');`);
  await page.press('Train');
  await page.statusMatches(new RegExp(`^Finished ${steps} steps`), 120000);
}

test('webkit: the first visit runs the SIMD128 build, and names + tiny trains through a pause', async () => {
  assert.match(await page.run("return document.querySelector('footer').textContent;"), /wasm SIMD128 \(this browser has no relaxed SIMD\)/);
  await page.run("set('Corpus', 'names'); set('Preset', 'tiny'); set('Workers', '1'); set('Iterations', '400');");
  await page.until(NAMES_READY, { what: 'the names corpus counted' });
  await page.press('Train');
  await page.until("/step \\d+/.test(stats()) && Number(stats().match(/step (\\d+)/)[1]) >= 20", { what: 'step 20' });
  await page.run("named('Pause').click();");
  const paused = Number((await page.statusMatches(/^Paused at step/)).match(/step ([\d,]+)/)[1].replace(/,/g, ''));
  assert.ok(paused >= 20 && paused < 400, `paused at ${paused}`);
  await page.press('Resume');
  await page.statusMatches(/^Finished 400 steps/, 120000);
  const loss = Number((await page.run('return stats();')).match(/loss ([\d.]+)/)[1]);
  assert.ok(loss < Math.log(28) - 0.8, `the loss is still ${loss} after 400 steps`);
  await page.shot('1-trained');
});

test('webkit: a sample streams in, and the attention heads are drawn', async () => {
  await page.run("set('Prompt', 'ma'); named('Generate').click();");
  await page.until("document.getElementById('sample-output').textContent.length >= 100 && !named('Generate').disabled");
  assert.ok((await page.run("return document.getElementById('sample-output').textContent;")).startsWith('ma'));
  await page.until(`[...document.querySelectorAll('#attention-grid canvas')]
    .filter((c) => c.getContext('2d').getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 !== 3 && v < 200)).length === 8`,
  { what: '8 drawn attention maps' });
  await page.shot('2-sampled');
});

test('webkit: 1 and 2 workers give the same losses and evaluations, bit for bit', async () => {
  await trainWith(1, 12);
  const one = checkpointMetadata(await saveCheckpoint()).history;
  assert.equal(one.losses.length, 12);
  await trainWith(2, 12);
  assert.match(await page.run('return stats();'), /on 2 workers/);
  assert.deepEqual(checkpointMetadata(await saveCheckpoint()).history, one);
});

test('webkit: a saved checkpoint survives a reset, loads and trains on', async () => {
  const file = join(folder, 'names-tiny.safetensors');
  writeFileSync(file, await saveCheckpoint());
  await page.run("named('Reset').click();");
  await page.statusMatches(/^Ready/);
  await wk.upload('#load', file);
  await page.statusMatches(/^Loaded a model at step 12/);
  await page.run("set('Iterations', '30');");
  await page.press('Resume');
  await page.statusMatches(/^Finished 30 steps/, 60000);
});

test('webkit: a reload restores the run, and it trains on', async () => {
  await page.run("set('Iterations', '2000');");
  await page.press('Resume');
  await page.until('Number(stats().match(/step (\\d+)/)?.[1] ?? 0) >= 60', { what: 'step 60' });
  await page.run("named('Pause').click();");
  const paused = (await page.statusMatches(/^Paused at step/)).match(/step ([\d,]+)/)[1];
  await page.open(null, new RegExp(`^Restored run '.*' at step ${paused}\\.`));
  await page.shot('3-restored');
  await page.press('Resume');
  await page.until(`Number(stats().match(/step (\\d+)/)?.[1] ?? 0) > ${paused}`, { what: `a step after ${paused}` });
  await page.run("named('Pause').click();");
  await page.statusMatches(/^Paused at step/);
  assert.deepEqual(await page.run('return window.errors;'), []);
});

test('webkit: a head knocked out, a pair patched, the answer attributed, composition, and the Fourier view', () => checkTestingViews(page));

test('webkit: the walk through the model follows a token forward and back', () => checkWalk(page, 200));

test('webkit: features trained in the tab, listed, opened and knocked out', () => checkFeatures(page, 30));

test('webkit: skip transcoders trained in the tab, a problem traced, a feature picked and knocked out', () => checkGraph(page, 30, '3+5='));

test('webkit: the toy model of superposition trained into a pentagon, and a phase diagram drawn by the workers', () => checkSuperposition(page));

test('webkit with relaxed SIMD switched on: the page falls back to SIMD128 and trains', async () => {
  const relaxed = await launchWebKit({ env: { JSC_useWasmRelaxedSIMD: '1' } });
  try {
    const other = drivenPage(relaxed, 'webkit-relaxed');
    await other.open(url);
    assert.match(await other.run("return document.querySelector('footer').textContent;"), /wasm SIMD128 \(the browser refused the relaxed-SIMD build: .+\)/);
    await other.run("set('Corpus', 'names'); set('Preset', 'tiny'); set('Iterations', '40');");
    await other.until(NAMES_READY, { what: 'the names corpus counted' });
    await other.press('Train');
    await other.statusMatches(/^Finished 40 steps/, 60000);
    assert.deepEqual(await other.run('return window.errors;'), []);
  } finally {
    await relaxed.close();
  }
});

test('webkit: a lesson sets the page up, points at a control, waits for its run, and leaving keeps the run', () => checkLesson(page));
