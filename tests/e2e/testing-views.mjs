// The views that test what a head does, as the WebDriver tests (Firefox, WebKit) drive them: on
// the reverse task a head knocked out by a click, a typed pair patched, the answer's logit
// attributed, the heads' composition, the circuit recorded and found now; on modular addition the
// Fourier view's spectrum and losses.
import assert from 'node:assert/strict';

const VIEW_TEXT = (id) => `document.getElementById('${id}').textContent`;

/**
 * Picks a task, waits for its `preset` to fill the form, trains for `steps` steps (with `settings`
 * named by label) and waits for the inside views.
 */
async function trainFor({ run, until, statusMatches, press }, task, preset, steps, settings = {}) {
  await run(`set('Corpus', 'task:${task}');`);
  await until(`named('Preset').value === '${preset}'`, { what: `the ${preset} preset` });
  const sets = Object.entries(settings).map(([name, value]) => `set('${name}', '${value}');`).join(' ');
  await run(`${sets} set('Iterations', '${steps}');`);
  await press('Train');
  await statusMatches(new RegExp(`^Finished ${steps} steps`), 120000);
  await run("const inside = document.getElementById('inside'); if (!inside.open) inside.querySelector('summary').click();");
  await until(`new RegExp('^At step ${steps}').test(${VIEW_TEXT('inside-status')})`, { what: `the inside views at step ${steps}` });
}

/** Drives every testing view in `page` (a drivenPage) and saves screenshots. */
export async function checkTestingViews(page) {
  const { run, until, shot } = page;
  await trainFor(page, 'reverse', 'reverse', 150);
  const cell = "[...document.querySelectorAll('#ablation-grid button')].find((b) => /^Knock out layer 1 head 1:/.test(b.getAttribute('aria-label')))";
  await until(`${cell} !== undefined`, { what: 'the ablation grid' });
  await run(`${cell}.click();`);
  await until(`/^L1H1 \\(layer 1 head 1\\) knocked out: held-out accuracy [\\d.]+% → [\\d.]+%/.test(${VIEW_TEXT('ablation-detail')})`, { what: 'the knocked-out scores' });
  assert.equal(await run(`return ${cell}.getAttribute('aria-pressed');`), 'true');
  // The circuit the evaluations recorded, then found now on 32 held-out pairs.
  await until(`/^Recorded at step 150 \\(a symbol changed, 8 pairs\\): logit difference /.test(${VIEW_TEXT('circuit-summary')})`, { what: 'the recorded circuit' });
  await run("document.getElementById('circuit-find').click();");
  await until(`/^32 pairs, e\\.g\\. ".+>" → ".".+ Every edge patched exactly in [\\d.]+ s, shared by \\d+ workers?\\. Circuits: exact patching \\d+ edges/.test(${VIEW_TEXT('circuit-summary')})`, { what: 'the circuit found now', timeout: 90000 });
  assert.match(await run("return document.getElementById('circuit-figure').getAttribute('aria-label');"), /^The circuit found by exact patching: \d+ of 110 edges/);
  await run("set('Clean', 'abcd'); set('Corrupted', 'abce');");
  await until(`/^Clean "abcd>" → "d"; corrupted "abce>" → "e"\\./.test(${VIEW_TEXT('patching-summary')})`, { what: 'the typed pair patched' });
  assert.equal(await run("return document.querySelectorAll('#patching-stream tr').length;"), 1 + 5, 'a header and a row per position of abcd>');
  await until(`/^Answer ".+" after "abcd>": logit -?[\\d.]+/.test(${VIEW_TEXT('attribution-summary')})`, { what: 'the attribution of the typed clean prompt' });
  assert.ok(await run("return document.querySelectorAll('#attribution-view tr').length;") >= 1 + 11);
  assert.equal(await run("return document.querySelectorAll('#composition-view table').length;"), 3, 'Q, K and V between layers 1 and 2');
  await run("document.querySelector('[data-view=\"ablation\"]').scrollIntoView();");
  await shot('testing-reverse');

  await trainFor(page, 'modular', 'grokking', 200, { p: 23 });
  await until(`/^Step 200: key frequencies .+; restricted loss [\\d.]+, excluded loss [\\d.]+/.test(${VIEW_TEXT('fourier-summary')})`, { what: 'the Fourier summary' });
  assert.match(await run("return document.getElementById('fourier-spectrum').getAttribute('aria-label');"), /^Embedding norm at each of 11 frequencies/);
  assert.match(await run("return document.getElementById('fourier-losses').getAttribute('aria-label');"), /^Losses at \d+ evaluations?; at step 200: train/);
  await run("document.querySelector('[data-view=\"fourier\"]').scrollIntoView();");
  await shot('testing-fourier');
  assert.deepEqual(await run('return window.errors;'), []);
}
