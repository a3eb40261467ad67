// The toy model of superposition in Chromium: five sparse features trained into two dimensions
// make a pentagon (every dimensionality near 2/5, five arrows), dense ones keep two; a setting the
// model cannot have is refused in words; the 2-in-1 phase diagram, shared among the workers, shows
// all three of Elhage's regions, read by pointing and by keyboard; an autoencoder finds known
// features (built ones, and the pentagon's in the toy model's hidden layer), its match grid read
// by keyboard; desktop, tablet and phone sizes, and no accessibility rule broken.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, openPlayground, SHOTS } from './session.mjs';

let session, page, errors;

/** Trains the toy model as the form is set, to its last step: each feature's row of the table. */
async function trainToy(p) {
  const before = await p.locator('#toy-status').textContent();
  await p.getByRole('button', { name: 'Train the toy model' }).click();
  await p.waitForFunction((last) => {
    const now = document.getElementById('toy-status').textContent;
    return now !== last && /^Step 3,000 of 3,000 in /.test(now);
  }, before, { timeout: 60000 });
  return p.locator('#toy-table tbody tr').evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => Number(c.textContent))));
}

before(async () => {
  session = await openPlayground({ width: 1280, height: 1000 });
  ({ page, errors } = session);
  await page.getByText('10. Superposition').click();
});
after(() => session?.close());

test('five sparse features in two dimensions make a pentagon; dense, two are stored', async () => {
  const sparse = await trainToy(page);
  assert.equal(sparse.length, 5);
  for (const [, , norm, dimensionality] of sparse) {
    assert.ok(norm > 0.5, `every feature stored: ${sparse}`);
    assert.ok(Math.abs(dimensionality - 0.4) < 0.05, `a pentagon's 2/5: ${sparse}`);
  }
  assert.equal(await page.locator('#toy-arrows line').count(), 5);
  assert.equal(await page.locator('#toy-outcome').textContent(), '5 features of 5 stored in 2 dimensions: more than one a dimension, in superposition.');
  assert.match(await page.locator('#toy-status').textContent(), /held-out loss 0\.00\d+, 3\.\d\d features per dimension\./);
  assert.equal(await page.locator('#toy-gram td').count(), 5 * 6 + 1, 'W Wᵀ and b for each feature, and the corner');
  await page.locator('#toy').screenshot({ path: `${SHOTS}70-superposition.png` });

  await page.getByLabel('Sparsity S').fill('0');
  const dense = await trainToy(page);
  assert.deepEqual(dense.map(([, , norm]) => norm > 0.5), [true, true, false, false, false], String(dense));
  assert.match(await page.locator('#toy-outcome').textContent(), /^2 features of 5 stored in 2 dimensions: at most one a dimension, no superposition\./);
  assert.deepEqual(errors, []);
});

test('a setting the toy model cannot have is refused in words, and the views stay', async () => {
  await page.getByLabel('Dimensions m').fill('9');
  await page.getByRole('button', { name: 'Train the toy model' }).click();
  await page.locator('#toy-error').getByText(/hidden dimensions must be 1 to the 5 features they hold, not 9/).waitFor();
  assert.equal(await page.locator('#toy-table tbody tr').count(), 5, 'the last model still shown');
  assert.equal(await page.getByRole('button', { name: 'Train the toy model' }).isEnabled(), true);
  await page.getByLabel('Dimensions m').fill('2');
});

test("the 2-in-1 phase diagram, shared among the workers, shows Elhage's three regions", async () => {
  await page.getByLabel('Cells a side').fill('6');
  await page.getByRole('button', { name: 'Draw the diagram' }).click();
  const status = page.locator('#toy-phase-status');
  await status.getByText(/^36 cells in /).waitFor({ timeout: 120000 });
  const text = await status.textContent();
  const [, notStored, alone, superposed] = text.match(/(\d+) not stored, (\d+) alone, (\d+) in superposition/).map(Number);
  assert.equal(notStored + alone + superposed, 36, text);
  assert.ok(notStored > 0 && alone > 0 && superposed > 0, text);
  await page.locator('#toy-phase-canvas').scrollIntoViewIfNeeded();
  const box = await page.locator('#toy-phase-canvas').boundingBox();
  await page.mouse.move(box.x + box.width - 5, box.y + 5); // dense, the extra feature ten times as important
  await page.locator('#toy-phase-cell').getByText(/^Density 1\.000, importance 10\.00: alone in a dimension/).waitFor();
  // By keyboard, from the cell pointed at: left to the least important extra feature, then down.
  await page.locator('#toy-phase-canvas').focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowLeft');
  await page.locator('#toy-phase-cell').getByText(/^Density 1\.000, importance 0\.10: not stored/).waitFor();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
  await page.locator('#toy-phase-cell').getByText(/^Density 0\.010, importance 0\.10: /).waitFor();
  await page.locator('#toy').screenshot({ path: `${SHOTS}71-phase-diagram.png` });
  assert.deepEqual(errors, []);
});

/** Trains the autoencoder as the form is set, to its last step: its scores, term by term. */
async function trainAutoencoder(p, steps) {
  await p.getByRole('button', { name: 'Train the autoencoder' }).click();
  await p.locator('#toy-sae-status').getByText(new RegExp(`^Step ${steps} of ${steps} in .*found\\.$`)).waitFor({ timeout: 60000 });
  await p.getByRole('button', { name: 'Train the autoencoder' }).and(p.locator(':enabled')).waitFor();
  const pairs = await p.locator('#toy-sae-scores div').evaluateAll((ds) => ds.map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]));
  return Object.fromEntries(pairs);
}

test('an autoencoder finds 64 known features in 32 dimensions, one latent each, and its match grid shows them', async () => {
  const scores = await trainAutoencoder(page, '1,000');
  assert.match(await page.locator('#toy-sae-status').textContent(), /: 64 of the 64 true features found\.$/);
  assert.ok(Number(scores.MCC) > 0.95, JSON.stringify(scores));
  assert.equal(scores.Found, '100.0%');
  assert.match(scores.L0, /^\d\.\d\d \(true 3\.\d\d\)$/, 'the true features fire about 3.2 a row (64 × 0.05)');
  assert.equal(scores.Absorption, undefined, 'no hierarchy, no absorption');
  const grid = page.getByRole('img', { name: /^The first 32 of the 64 true features against the latents matched to them: 32 at/ });
  await grid.focus();
  await page.locator('#toy-sae-cell').getByText(/^True feature 1 and latent \d+ \(matched to feature 1\): \|cosine\| 0\.9\d\d$/).waitFor();
  await page.keyboard.press('ArrowRight');
  await page.locator('#toy-sae-cell').getByText(/^True feature 1 and latent \d+ \(matched to feature 2\): \|cosine\| 0\.[0-3]\d\d$/).waitFor();
  await page.locator('#toy-sae-figure').scrollIntoViewIfNeeded();
  await page.locator('#toy').screenshot({ path: `${SHOTS}73-autoencoder-known-features.png` });

  // A correlated hierarchy: children with their parents, and features firing together.
  await page.getByLabel('Children per parent').fill('3');
  await page.locator('#toy-sae-correlation').fill('0.2');
  const hierarchy = await trainAutoencoder(page, '1,000');
  assert.match(hierarchy.Absorption, /^\d+\.\d%$/, 'a hierarchy has an absorption');
  await page.locator('#toy-sae-absorption-note').getByText(/^SynthSAEBench \(2026\) found that Matryoshka autoencoders absorb/).waitFor();
  await page.locator('#toy-sae-correlation').fill('-1');
  await page.getByRole('button', { name: 'Train the autoencoder' }).click();
  await page.locator('#toy-sae-error').getByText('a correlation needs 1 to 256 factors and a scale of 0 or more, not 16 and -1').waitFor();
  await page.locator('#toy-sae-correlation').fill('0');
  await page.getByLabel('Children per parent').fill('0');
  assert.deepEqual(errors, []);
});

test("an autoencoder on the toy model's hidden layer finds the pentagon's five features; a bad setting is refused in words", async () => {
  await page.getByLabel('Sparsity S').fill('0.9');
  await trainToy(page);
  await page.locator('#toy-sae-source').selectOption('hidden');
  assert.equal(await page.locator('#toy-sae-features').isVisible(), false, 'the built activations\' settings hide');
  await page.getByLabel('Firing per row, k').fill('1');
  await page.getByLabel('Latents per dimension').fill('5');
  await page.locator('#toy-sae-steps').fill('1500');
  const scores = await trainAutoencoder(page, '1,500');
  assert.match(await page.locator('#toy-sae-status').textContent(), /: 5 of the 5 true features found\.$/);
  assert.ok(Number(scores.MCC) > 0.95, JSON.stringify(scores));
  // The lesson's second autoencoder: a weak L1 penalty reconstructs better and finds the features worse.
  await page.locator('#toy-sae-architecture').selectOption('relu');
  await page.locator('#toy-sae-l1').fill('0.05');
  const relu = await trainAutoencoder(page, '1,500');
  const share = (text) => Number(text.replace('%', ''));
  assert.ok(share(relu['Variance explained']) > share(scores['Variance explained']), JSON.stringify({ relu, scores }));
  assert.ok(Number(relu.MCC) < Number(scores.MCC) && Number(relu.L0.split(' ')[0]) > 1, JSON.stringify({ relu, scores }));
  await page.locator('#toy-sae-architecture').selectOption('top_k');

  await page.locator('#toy-sae-source').selectOption('synthetic');
  await page.locator('#toy-sae-features').fill('0');
  const last = await page.locator('#toy-sae-status').textContent();
  await page.getByRole('button', { name: 'Train the autoencoder' }).click();
  await page.locator('#toy-sae-error').getByText(/^synthetic activations are built from 1 to \d+ features .*, not 0 in 32$/).waitFor();
  assert.equal(await page.locator('#toy-sae-status').textContent(), last, 'the last autoencoder\'s words stay');
  await page.locator('#toy-sae-features').fill('64');
  assert.deepEqual(errors, []);
});

test('the section fits a tablet and a phone, and breaks no accessibility rule', async () => {
  for (const [name, width, height] of [['tablet', 820, 1180], ['phone', 390, 844]]) {
    await page.setViewportSize({ width, height });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= width, `${name}: the page is ${wide}px wide`);
    await page.locator('#toy').screenshot({ path: `${SHOTS}72-superposition-${name}.png` });
  }
  assert.deepEqual(await axeViolations(page), []);
});
