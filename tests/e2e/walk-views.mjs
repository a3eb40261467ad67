// The walk through the model as the WebDriver tests (Firefox, WebKit) drive it: opened on the run
// the page holds, every stage drawn, a token pressed and followed.
import assert from 'node:assert/strict';

const TEXT = (id) => `document.getElementById('${id}').textContent`;

/** Opens the walk on the page's current run (at step `step`) and follows another token. */
export async function checkWalk({ run, until, shot }, step) {
  await run("const walk = document.getElementById('walk'); if (!walk.open) walk.querySelector('summary').click();");
  await until(`/^At step ${step}:/.test(${TEXT('walk-status')})`, { what: `the walk at step ${step}` });
  assert.ok(await run("return document.querySelectorAll('#walk-forward figure').length;") >= 20, 'the forward stages');
  assert.ok(await run("return document.querySelectorAll('#walk-backward figure').length;") >= 10, 'the backward stages');
  assert.match(await run(`return ${TEXT('walk-draw-title')};`), /^The draw at temperature .+ drawn with probability [\d.]+%$/);
  assert.match(await run(`return ${TEXT('walk-step')};`), /^Teaching .+: loss −log p = [\d.]+/);
  await run("document.querySelector('#walk-tokens li:nth-child(2) button').click();");
  await until(`/position 1 /.test(${TEXT('walk-status')})`, { what: 'position 1 followed' });
  assert.equal(await run("return document.querySelector('#walk-tokens li:nth-child(2) button').getAttribute('aria-pressed');"), 'true');
  await run("document.getElementById('walk').scrollIntoView();");
  await shot('walk');
  assert.deepEqual(await run('return window.errors;'), []);
}
