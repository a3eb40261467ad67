// A whole first visit in firefox-esr, through geckodriver: the names corpus and the tiny preset
// trained, a sample, every attention head drawn, a checkpoint saved (a real download), a reset,
// the checkpoint loaded and trained on, a corrupt file refused, the views that test what a head
// does (testing-views.mjs), the walk through the model, features trained in the tab
// (feature-views.mjs), the toy model of superposition (superposition-views.mjs), and a lesson
// (lesson-views.mjs).
// Screenshots go beside Chromium's in target/screenshots/, prefixed "firefox-".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveSite } from './site.mjs';
import { launchFirefox } from './browsers.mjs';
import { drivenPage } from './driven-page.mjs';
import { SHOTS } from './session.mjs';
import { checkTestingViews } from './testing-views.mjs';
import { checkWalk } from './walk-views.mjs';
import { checkFeatures, checkGraph } from './feature-views.mjs';
import { checkSuperposition } from './superposition-views.mjs';
import { checkLesson } from './lesson-views.mjs';

let server, url, ff, downloads, page, run, until, statusMatches, press, shot;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  ({ server, url } = await serveSite());
  downloads = mkdtempSync(join(tmpdir(), 'gpt-ff-downloads-'));
  ff = await launchFirefox({ downloadDir: downloads });
  page = drivenPage(ff, 'firefox');
  ({ run, until, statusMatches, press, shot } = page);
  await page.open(url);
});
after(async () => {
  await ff?.close();
  server?.close();
  rmSync(downloads, { recursive: true, force: true });
});

test('firefox: names + tiny trains, and the loss falls', async () => {
  await run(`set('Corpus', 'names'); set('Preset', 'tiny'); set('Iterations', '80');`);
  await until("/vocabulary of 28 distinct characters/.test(document.getElementById('text-summary').textContent) && !named('Train').disabled");
  await press('Train');
  await statusMatches(/^Finished 80 steps/, 120000);
  const loss = Number((await run("return document.getElementById('stats').textContent;")).match(/loss ([\d.]+)/)[1]);
  assert.ok(loss < Math.log(28) - 0.5, `the loss is still ${loss} after 80 steps`);
  await shot('1-trained');
});

test('firefox: a sample streams in, with the next tokens beside it', async () => {
  await run("set('Prompt', 'an'); named('Generate').click();");
  await until("document.getElementById('sample-output').textContent.length >= 100 && !named('Generate').disabled");
  assert.ok((await run("return document.getElementById('sample-output').textContent;")).startsWith('an'));
  await until("document.querySelectorAll('#next-tokens li').length === 8");
});

test('firefox: every attention head is drawn', async () => {
  const inked = await until(`(() => {
    const maps = [...document.querySelectorAll('#attention-grid canvas')];
    const drawn = maps.filter((c) => c.getContext('2d').getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 !== 3 && v < 200));
    return maps.length === 8 && drawn.length === 8 && drawn.length;
  })()`, { what: '8 drawn attention maps (2 layers x 4 heads)' });
  assert.equal(inked, 8);
  await shot('2-sampled');
});

test('firefox: a checkpoint downloads, survives a reset, loads and trains on; a corrupt one is refused', async () => {
  await run("named('Save checkpoint').click();");
  const file = join(downloads, 'names-tiny-step80.safetensors');
  for (let i = 0; i < 100 && !(existsSync(file) && statSync(file).size > 0); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(existsSync(file), `no download; the folder holds ${readdirSync(downloads)}`);
  await run("named('Reset').click();");
  await statusMatches(/^Ready/);
  await ff.upload('#load', file);
  await statusMatches(/^Loaded a model at step 80/);
  await run("set('Iterations', '100');");
  await press('Resume');
  await statusMatches(/^Finished 100 steps/, 60000);
  assert.match(await run("return document.getElementById('stats').textContent;"), /step 100 \/ 100/);
  const broken = join(downloads, 'broken.safetensors');
  writeFileSync(broken, 'not a checkpoint');
  await ff.upload('#load', broken);
  await until("[...document.querySelectorAll('[role=alert]')].some((a) => /not a readable checkpoint/.test(a.textContent))");
  await statusMatches(/current model is unchanged/);
  assert.equal(await run("return named('Generate').disabled;"), false);
  await shot('3-trained-on');
  assert.deepEqual(await run('return window.errors;'), []);
});

test('firefox: a head knocked out, a pair patched, the answer attributed, composition, and the Fourier view', () => checkTestingViews(page));

test('firefox: the walk through the model follows a token forward and back', () => checkWalk(page, 200));

test('firefox: features trained in the tab, listed, opened and knocked out', () => checkFeatures(page, 30));

test('firefox: skip transcoders trained in the tab, a problem traced, a feature picked and knocked out', () => checkGraph(page, 30, '3+5='));

test('firefox: the toy model of superposition trained into a pentagon, and a phase diagram drawn by the workers', () => checkSuperposition(page));

test('firefox: a lesson sets the page up, points at a control, waits for its run, and leaving keeps the run', () => checkLesson(page));
