// The features and attribution graph sections as the WebDriver tests (Firefox, WebKit) drive them:
// an autoencoder trained on the run the page holds, its measures, its list, a card, and a feature
// knocked out; transcoders trained on it, a prompt traced, a feature picked and knocked out.
import assert from 'node:assert/strict';

const TEXT = (id) => `document.getElementById('${id}').textContent`;

/** Sets each field of `fields` (id: value) as typing would, in page script. */
const PUT = "const put = (id, v) => { const el = document.getElementById(id); el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); };";

/** Trains an autoencoder of `steps` steps on the page's current (paused) run and opens a card. */
export async function checkFeatures({ run, until, shot }, steps) {
  await run(`const f = document.getElementById('features'); if (!f.open) f.querySelector('summary').click();
    ${PUT}
    put('features-steps', '${steps}'); put('features-k', '8');
    document.getElementById('features-train').click();`);
  await until(`new RegExp('^Step ${steps} of ${steps}:').test(${TEXT('features-status')})`, { what: `the autoencoder at step ${steps}`, timeout: 120000 });
  await until("document.querySelectorAll('#features-list tbody tr').length >= 10", { what: 'the feature list' });
  await until(`/^Feature \\d+$/.test(${TEXT('features-card-title')})`, { what: 'a feature card' });
  assert.match(await run(`return ${TEXT('features-measures')};`), /^Variance explained[\d.]+%Loss added\+-?[\d.e-]+Loss recovered-?[\d.]+%L0[\d.]+Dead[\d.]+%Silent in [\d,]+ tokens[\d.]+%Dense[\d.]+%$/);
  assert.ok(await run("return document.querySelectorAll('#features-contexts li').length;") >= 1, 'its contexts');
  await run("document.getElementById('features-knock').click();");
  await until(`/^Without feature \\d+, the held-out loss goes from [\\d.]+ to [\\d.]+\\.$/.test(${TEXT('features-knock-result')})`, { what: 'the knockout' });
  await run("document.getElementById('features').scrollIntoView();");
  await shot('features');
  assert.deepEqual(await run('return window.errors;'), []);
}

/**
 * Trains skip transcoders of `steps` steps on the page's current (paused) run, traces `prompt`,
 * picks a feature and knocks it out.
 */
export async function checkGraph({ run, until, shot }, steps, prompt) {
  await run(`const g = document.getElementById('graph'); if (!g.open) g.querySelector('summary').click();
    ${PUT}
    put('graph-steps', '${steps}'); put('graph-k', '8');
    document.getElementById('graph-skip').checked = true;
    document.getElementById('graph-train').click();`);
  await until(`new RegExp('^Step ${steps} of ${steps}:').test(${TEXT('graph-status')})`, { what: `the transcoders at step ${steps}`, timeout: 120000 });
  assert.match(await run(`return ${TEXT('graph-status')};`), / features and a skip connection for each MLP/);
  assert.match(await run(`return ${TEXT('graph-measures')};`), /^Top-1 agreement[\d.]+%KL[\d.]+Loss/);
  await run(`${PUT} put('graph-prompt', ${JSON.stringify(prompt)}); put('graph-node-threshold', '1'); document.getElementById('graph-trace').click();`);
  await until(`/features fire on/.test(${TEXT('graph-summary')})`, { what: 'the graph', timeout: 60000 });
  const summary = await run(`return ${TEXT('graph-summary')};`);
  assert.ok(await run("return document.querySelectorAll('.graph-node.feature').length;") >= 1, summary);
  await run("document.querySelector('.graph-node.feature').dispatchEvent(new MouseEvent('click', { bubbles: true }));");
  await until(`/^Feature \\d+$/.test(${TEXT('graph-card-title')})`, { what: 'a feature card' });
  await run("document.getElementById('graph-knock').click();");
  await until("document.querySelectorAll('#graph-effects tr').length >= 2", { what: 'the knockout\'s effects' });
  await run("document.getElementById('graph').scrollIntoView();");
  await shot('graph');
  assert.deepEqual(await run('return window.errors;'), []);
}
