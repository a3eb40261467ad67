// The features section as the WebDriver tests (Firefox, WebKit) drive it: an autoencoder trained on
// the run the page holds, its measures, its list, a card, and a feature knocked out.
import assert from 'node:assert/strict';

const TEXT = (id) => `document.getElementById('${id}').textContent`;

/** Trains an autoencoder of `steps` steps on the page's current (paused) run and opens a card. */
export async function checkFeatures({ run, until, shot }, steps) {
  await run(`const f = document.getElementById('features'); if (!f.open) f.querySelector('summary').click();
    const put = (id, v) => { const el = document.getElementById(id); el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); };
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
