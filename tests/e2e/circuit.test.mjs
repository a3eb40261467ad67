// The circuit view, in Chromium: on the induction preset trained a few hundred steps, the circuit
// recorded while it trained (and the loss chart's mark where it formed); find it now under the
// symbol change, then under the swap, where the previous-token head's edge into the induction
// head's key shows (every edge patched by the page's workers together), with MIB's scores of each
// ranking; read an edge's scores by
// keyboard and by touch; desktop and phone sizes; axe-core finds nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, openPlayground, SHOTS, trainRepeatAndOpenView } from './session.mjs';

const STEPS = 400;
let session, page, errors, shot;

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors, shot } = session);
  await trainRepeatAndOpenView(page, STEPS, 'circuit');
});
after(() => session?.close());

test('the circuit recorded while training, then found now under each corruption', async () => {
  const view = page.locator('[data-view="circuit"]');
  const summary = page.locator('#circuit-summary');
  await summary.getByText(new RegExp(`^Recorded at step ${STEPS} \\(the earlier copy swapped, 8 pairs\\): logit difference -?[\\d.]+ clean, -?[\\d.]+ corrupted; the exact ranking's circuit of \\d+ edges keeps \\d+%\\. The circuit formed at step \\d+\\.`)).waitFor();
  assert.match(await page.locator('#circuit-timeline').getAttribute('aria-label'), /^The strongest edges' scores at \d+ recorded steps, up to step 400; the circuit formed at step \d+: /);
  assert.match(await page.locator('#circuit-figure').getAttribute('aria-label'), /^The circuit found by the exact ranking recorded at step 400: \d+ of 110 edges/);
  assert.match(await page.locator('#loss-chart').getAttribute('aria-label'), /circuit formed at step \d+/);
  await page.getByRole('button', { name: 'Find the circuit now' }).click();
  await summary.getByText(/^32 pairs, e\.g\. ".+" → ".", corrupted ".+" → "."\. Logit difference \(the answer's logit minus the corrupted answer's\): -?[\d.]+ clean, -?[\d.]+ corrupted; 110 edges\. Every edge patched exactly in [\d.]+ s, shared by \d+ workers?\. Circuits: exact patching \d+ edges/).waitFor({ timeout: 60000 });
  assert.match(await summary.textContent(), /EAP ranks the edges with Spearman -?[\d.]+ against exact, \d+ of its top \d+ the same/);
  assert.match(await page.locator('#circuit-figure').getAttribute('aria-label'), /^The circuit found by exact patching: \d+ of 110 edges, keeping \d+% of the metric; strongest /);
  assert.match(await page.locator('#circuit-curve').getAttribute('aria-label'), /^Faithfulness against edges kept: exact patching keeps [\d.]+ with \d+ edges/);
  // MIB's scores of each ranking, with its curves' areas shaded; on 110 edges its three smallest
  // shares hold no edge, and the summary says so.
  assert.match(await summary.textContent(), /MIB's scores \(Mueller et al\. 2025\): exact patching CPR [\d.]+, CMD [\d.]+; EAP-IG CPR [\d.]+, CMD [\d.]+; EAP CPR [\d.]+, CMD [\d.]+\. .+ On 110 edges MIB's 3 smallest shares keep no edge, so every curve is 0 below 1%/);
  assert.match(await page.locator('#circuit-mib').getAttribute('aria-label'), /^MIB's faithfulness curves, .+: exact patching CPR [\d.]+, CMD [\d.]+/);
  await page.getByLabel('Corruption').selectOption('swap');
  await summary.getByText(/^32 pairs.+Circuits: exact patching/).waitFor({ timeout: 60000 });
  await page.waitForFunction(() => /\(key\)/.test(document.getElementById('circuit-figure').getAttribute('aria-label')), null, { timeout: 60000 });
  // The keyboard reads each edge of the circuit in turn.
  await page.locator('#circuit-figure').focus();
  await page.keyboard.press('ArrowRight');
  const readout = page.locator('#circuit-readout');
  await readout.getByText(/^.+ → .+: exact -?[\d.]+, EAP -?[\d.]+, EAP-IG -?[\d.]+ \(EAP-IG's name: .+->.+\)$/).waitFor();
  // The circuit as EAP-IG's Graph JSON, which its Graph.from_json reads.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download as EAP-IG\'s Graph JSON' }).click()]);
  const graph = JSON.parse(await (await import('node:fs/promises')).readFile(await download.path(), 'utf8'));
  assert.deepEqual(Object.keys(graph).sort(), ['cfg', 'edges', 'nodes']);
  assert.equal(Object.keys(graph.edges).length, 110);
  assert.ok(graph.edges['a0.h0->a1.h0<k>'] && typeof graph.edges['m1->logits'].score === 'number');
  await page.getByLabel('Draw the circuit found by').selectOption('greedy');
  assert.match(await page.locator('#circuit-figure').getAttribute('aria-label'), /^The circuit found by greedy pruning/);
  await view.screenshot({ path: `${SHOTS}45-circuit-view.png` });
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(errors, []);
});

test('at a tablet\'s size and a phone\'s the figure fits, and reads out by touch', async () => {
  await page.setViewportSize({ width: 820, height: 1180 });
  const figure = page.locator('#circuit-figure');
  await figure.scrollIntoViewIfNeeded();
  assert.ok((await figure.boundingBox()).width <= 820, 'the figure fits a tablet');
  await page.locator('[data-view="circuit"]').screenshot({ path: `${SHOTS}45-circuit-tablet.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  const canvas = page.locator('#circuit-figure');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  assert.ok(box.width <= 390, 'the figure fits the screen');
  // Tap along the middle until an edge answers.
  for (let y = 0.2; y < 0.9; y += 0.05) {
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * y);
    if (/→/.test(await page.locator('#circuit-readout').textContent())) break;
  }
  await shot('45-circuit-phone');
  assert.deepEqual(errors, []);
});
