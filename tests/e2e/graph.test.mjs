// The attribution graph in Chromium: transcoders for every MLP trained in the tab on a trained
// model (their steps shared by two workers), their measures, a prompt traced into a graph of
// features, a feature's card by mouse and by keyboard, features grouped into a supernode and
// knocked out (the graph's predicted effect beside the replacement model's and the model's, attention
// frozen and free), an edge's head loadings by mouse, tap and keyboard, the Neuronpedia file, a prompt
// too long and a graph too big refused; desktop, tablet and phone sizes, and no accessibility rule broken.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { axeViolations, openPlayground, SHOTS, trainTiny, untilStatus } from './session.mjs';

let session, page, errors;
/** The characters (tokens) of the prompt traced. */
const PROMPT = 24;

/** Trains the tiny preset for `steps`, then transcoders on it for `transcoderSteps`, and traces a prompt. */
async function trainAndTrace(p, steps, transcoderSteps, press = 'click') {
  await trainTiny(p, steps, press);
  if (!await p.locator('#graph').evaluate((d) => d.open)) await p.getByText('9. Attribution graph')[press]();
  await p.getByLabel('Transcoder steps').fill(String(transcoderSteps));
  await p.getByLabel('features per token (k)').fill('8');
  await p.getByRole('button', { name: 'Train transcoders' })[press]();
  await p.locator('#graph-status').getByText(new RegExp(`^Step ${transcoderSteps} of ${transcoderSteps}:`)).waitFor({ timeout: 120000 });
  // The start of the text it trained on: every character is in its vocabulary.
  await p.getByLabel('Trace the next token of').fill((await p.locator('#text').inputValue()).slice(0, PROMPT));
  await p.getByRole('button', { name: 'Trace', exact: true })[press]();
  await p.locator('#graph-summary').getByText(/features fire on/).waitFor({ timeout: 60000 });
}

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = session);
  await page.getByLabel('Workers').selectOption('2');
  await trainAndTrace(page, 200, 60);
});
after(() => session?.close());

test('transcoders train on two workers, are measured, and trace a prompt into a graph', async () => {
  const measures = await page.locator('#graph-measures').textContent();
  const agreement = Number(measures.match(/Top-1 agreement([\d.]+)%/)?.[1]);
  assert.ok(agreement > 0 && agreement <= 100, measures);
  assert.match(measures, /KL[\d.]+Loss[\d.]+ → [\d.]+MLP 1 error[\d.]+MLP 2 error[\d.]+/);
  const summary = await page.locator('#graph-summary').textContent();
  const completeness = Number(summary.match(/explain ([\d.]+)% of what reaches the output/)?.[1]);
  assert.ok(completeness > 50, summary);
  assert.ok(await page.locator('.graph-node.feature').count() >= 1);
  assert.equal(await page.locator('.graph-node.token').count(), PROMPT, 'a node for each token of the prompt');
  assert.ok(await page.locator('.graph-node.logit').count() >= 1);
  assert.ok(await page.locator('.graph-edge').count() >= 1);
  await page.locator('#graph').screenshot({ path: `${SHOTS}62-graph.png` });
  assert.deepEqual(errors, []);
});

test('a feature opens its card by mouse and by keyboard, is grouped and knocked out', async () => {
  const features = page.locator('.graph-node.feature');
  await features.first().click();
  await page.locator('#graph-card-title').getByText(/^Feature \d+$/).waitFor();
  assert.ok(await page.locator('#graph-contexts li').count() >= 1);
  await features.nth(1).focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('.graph-node.picked').count(), 2);
  await page.getByRole('button', { name: 'Group picked as a supernode' }).click();
  assert.equal(await page.locator('.graph-node.supernode').count(), 1);
  await page.getByRole('button', { name: 'Knock picked out' }).click();
  await page.locator('#graph-effects tr').nth(1).waitFor();
  const heads = await page.locator('#graph-effects th').allTextContents();
  assert.deepEqual(heads, ['Next token', 'Predicted by the graph', 'In the replacement model', 'In the model, attention frozen',
    'In the model, attention free', 'Probability after (model)']);
  const [token, ...numbers] = await page.locator('#graph-effects tr').nth(1).locator('td').allTextContents();
  assert.ok(token.length > 0 && numbers.length === 5 && numbers.every((x) => Number.isFinite(Number(x))), `${token} ${numbers}`);
  await page.getByRole('button', { name: 'Ungroup all' }).click();
  assert.equal(await page.locator('.graph-node.supernode').count(), 0);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download for Neuronpedia' }).click()]);
  const file = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(Object.keys(file).sort(), ['links', 'metadata', 'nodes', 'qParams']);
  assert.equal(file.nodes.filter((n) => n.feature_type === 'cross layer transcoder').length, await page.locator('.graph-node.feature').count());
  await page.locator('#graph').screenshot({ path: `${SHOTS}63-graph-picked.png` });
  assert.deepEqual(errors, []);
});

/** A point on screen where an edge that crosses positions (its hover text names the heads that carry it) is on top, or null. */
async function crossingPoint(p) {
  await p.locator('#graph-svg').scrollIntoViewIfNeeded();
  return p.evaluate(() => {
    for (const link of [...document.querySelectorAll('.graph-link')].reverse()) { // the strongest on top
      if (!/; via L\dH\d/.test(link.querySelector('title').textContent)) continue;
      const line = link.querySelector('.graph-link-hit');
      const [length, m] = [line.getTotalLength(), line.getScreenCTM()];
      for (let f = 0.1; f < 0.95; f += 0.05) {
        const { x, y } = line.getPointAtLength(f * length);
        const [sx, sy] = [x * m.a + y * m.c + m.e, x * m.b + y * m.d + m.f];
        if (link.contains(document.elementFromPoint(sx, sy))) return { x: sx, y: sy };
      }
    }
    return null;
  });
}

/** The parts of the head loadings table, and the edge's weight from the summary above it. */
async function loadings(p) {
  const summary = await p.locator('#graph-edge-summary').textContent();
  const weight = Number(summary.match(/\(([+-][\d.]+)\) crosses positions/)?.[1]);
  const parts = (await p.locator('#graph-edge-heads tr').evaluateAll((rows) => rows.slice(1).map((r) => r.cells[1].textContent))).map(Number);
  return { summary, weight, parts };
}

test('an edge between positions splits into the heads that carry it, by mouse and by keyboard', async () => {
  const crossing = await crossingPoint(page);
  assert.ok(crossing, 'some kept edge crosses positions, and shows');
  await page.mouse.click(crossing.x, crossing.y);
  const mouse = await loadings(page);
  assert.match(mouse.summary, /^.+ → .+ \([+-][\d.]+\) crosses positions, so heads carry it\./);
  assert.ok(mouse.parts.length >= 2 && mouse.parts.every(Number.isFinite), `${mouse.parts}`);
  const sum = mouse.parts.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - mouse.weight) <= 0.001 * mouse.parts.length, `the parts ${mouse.parts} add up to ${mouse.weight}`);
  assert.deepEqual(await page.locator('#graph-edge-heads th').allTextContents(), ['Head', 'Part of the edge', 'Share']);
  // By keyboard: a feature picked lists its edges from earlier positions, each a button.
  const features = page.locator('.graph-node.feature');
  for (let i = 0; i < await features.count(); i++) {
    await features.nth(i).focus();
    await page.keyboard.press('Enter');
    if (await page.locator('#graph-edges-into button').count()) break;
    await page.keyboard.press('Enter'); // let it go again
  }
  await page.locator('#graph-into-title').getByText(/^Edges into L\dF\d+@\d+ from earlier positions, strongest first:$/).waitFor();
  await page.locator('#graph-edges-into button').first().focus();
  await page.keyboard.press('Enter');
  const keyboard = await loadings(page);
  assert.ok(keyboard.parts.length >= 2, keyboard.summary);
  await page.locator('#graph').screenshot({ path: `${SHOTS}66-graph-heads.png` });
  assert.deepEqual(errors, []);
});

test('why a head attends: its score split into pairs of nodes that add up to it', async () => {
  await page.getByLabel('head', { exact: true }).fill('2');
  await page.getByLabel('to position').fill('3');
  await page.getByRole('button', { name: 'Why?' }).click();
  const summary = page.locator('#graph-why-summary');
  await summary.getByText(/^Layer 2 head 2 gives [\d.]+% of its attention from 23 ".*" to 3 ".*": its score is -?[\d.]+ before the softmax/).waitFor();
  const [, score, total] = (await summary.textContent()).match(/its score is (-?\d+\.\d+) before the softmax, [\d,]+ terms that add up to (-?\d+\.\d+)/);
  assert.ok(Math.abs(Number(score) - Number(total)) <= 0.002, `${score} against ${total}`);
  assert.ok(await page.locator('#graph-why-pairs tr').count() >= 3, 'the strongest terms');
  await page.getByLabel('to position').fill('23');
  await page.getByLabel('attend from position').fill('3');
  await page.getByRole('button', { name: 'Why?' }).click();
  await page.locator('#graph-error').getByText(/a head attends from a position to itself or an earlier one/).waitFor();
  assert.match(await summary.textContent(), /^a head attends from a position to itself or an earlier one/, 'said beside the form too');
  await page.locator('#graph').screenshot({ path: `${SHOTS}65-graph-why.png` });
  assert.deepEqual(errors.filter((e) => !/earlier one/.test(e)), []);
});

test('a prompt longer than the block is refused and the graph stays', async () => {
  const before = await page.locator('.graph-node').count();
  await page.getByLabel('Trace the next token of').fill('x'.repeat(200));
  await page.getByRole('button', { name: 'Trace', exact: true }).click();
  await page.locator('#graph-error').getByText(/longer than the model's block of \d+: shorten it/).waitFor();
  assert.equal(await page.locator('.graph-node').count(), before);
});

test('a reload brings the transcoders back with their run, and they trace the same graph', async () => {
  const measures = await page.locator('#graph-measures').textContent();
  await page.getByLabel('Trace the next token of').fill((await page.locator('#text').inputValue()).slice(0, PROMPT));
  await page.getByRole('button', { name: 'Trace', exact: true }).click();
  await page.locator('#graph-summary').getByText(/features fire on/).waitFor();
  const withoutMemory = (text) => text.replace(/; the workers hold \d+ MiB/, '');
  const summary = withoutMemory(await page.locator('#graph-summary').textContent());
  await page.locator('#graph-status').getByText(/ Saved with the run\.$/).waitFor();
  await page.reload();
  await untilStatus(page, /^Restored/);
  if (!await page.locator('#graph').evaluate((d) => d.open)) await page.getByText('9. Attribution graph').click();
  await page.locator('#graph-status').getByText(/^Step 60 of 60:/).waitFor({ timeout: 60000 });
  assert.equal(await page.locator('#graph-measures').textContent(), measures, 'the same measures');
  await page.getByLabel('Trace the next token of').fill((await page.locator('#text').inputValue()).slice(0, PROMPT));
  await page.getByRole('button', { name: 'Trace', exact: true }).click();
  await page.locator('#graph-summary').getByText(/features fire on/).waitFor();
  assert.equal(withoutMemory(await page.locator('#graph-summary').textContent()), summary, 'the same graph');
  assert.deepEqual(errors, []);
});

test('transcoders pause, trace as they are, and resume', async () => {
  await page.getByLabel('Transcoder steps').fill('100000');
  await page.getByRole('button', { name: 'Train transcoders' }).click();
  await page.locator('#graph-status').getByText(/^Step \d+ of 100000, [\d,]+ tokens\/s on 2 workers, \d+ s left/).waitFor({ timeout: 60000 });
  await page.getByRole('button', { name: 'Pause transcoders' }).click();
  await page.locator('#graph-status').getByText(/^Paused at step \d+ of 100000: they trace prompts as they are\./).waitFor();
  await page.getByRole('button', { name: 'Trace', exact: true }).click();
  await page.locator('#graph-summary').getByText(/features fire on/).waitFor();
  await page.getByRole('button', { name: 'Resume transcoders' }).click();
  await page.locator('#graph-status').getByText(/^Step \d+ of 100000, /).waitFor();
  await page.getByRole('button', { name: 'Pause transcoders' }).click();
  await page.locator('#graph-status').getByText(/^Paused at step/).waitFor();
  assert.deepEqual(errors, []);
});

test('with the graph open, no accessibility rule is broken', async () => {
  assert.deepEqual(await axeViolations(page), []);
});

test('a graph too big for the page is refused, saying what to shorten, and the graph stays', async () => {
  const before = await page.locator('.graph-node').count();
  // 32 features per channel (2,048 per MLP), every one allowed to fire: about half do at each position.
  await page.getByLabel('Features per MLP channel').fill('32');
  await page.getByLabel('features per token (k)').fill('2048');
  await page.getByLabel('Transcoder steps').fill('1');
  await page.getByRole('button', { name: 'Train transcoders' }).click();
  await page.locator('#graph-status').getByText(/^Step 1 of 1:/).waitFor({ timeout: 60000 });
  await page.getByLabel('Trace the next token of').fill((await page.locator('#text').inputValue()).slice(0, 32));
  await page.getByRole('button', { name: 'Trace', exact: true }).click();
  await page.locator('#graph-error').getByText(/^this prompt's graph would take \d+ MB \(\d+ active features over 32 tokens\), more than the 512 MB a graph may: trace a shorter prompt, or train transcoders with fewer features per token \(k\)$/).waitFor();
  assert.equal(await page.locator('.graph-node').count(), before, 'the graph drawn before stays');
  assert.deepEqual(errors, []);
});

for (const [name, viewport, device] of [
  ['tablet', { width: 768, height: 1024 }, { hasTouch: true }],
  ['phone', { width: 390, height: 844 }, { hasTouch: true, isMobile: true }],
]) {
  test(`on a ${name}, the graph fits the screen (scrolling inside) and a tap opens a card`, async () => {
    const small = await openPlayground(viewport, [], device);
    try {
      await trainAndTrace(small.page, 100, 30, 'tap');
      await small.page.locator('.graph-node.feature').first().tap();
      await small.page.locator('#graph-card-title').getByText(/^Feature \d+$/).waitFor();
      const crossing = await crossingPoint(small.page);
      await small.page.touchscreen.tap(crossing.x, crossing.y);
      await small.page.locator('#graph-edge-summary').getByText(/crosses positions, so heads carry it/).waitFor();
      const overflow = await small.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, 'nothing wider than the screen');
      await small.page.locator('#graph').screenshot({ path: `${SHOTS}64-graph-${name}.png` });
      assert.deepEqual(small.errors, []);
    } finally {
      await small.close();
    }
  });
}
