// A lesson as the WebDriver tests (Firefox, WebKit) drive it: the first bundled lesson started from
// the menu, a step that sets the page up and points at a control, a step that waits for the run it
// trains, Back, and Leave keeping the run.
import assert from 'node:assert/strict';

const TEXT = (id) => `document.getElementById('${id}').textContent`;

export async function checkLesson({ run, until, press, shot }) {
  await run("document.getElementById('lessons-button').click();");
  await until("document.querySelectorAll('#lessons-list button').length >= 7", { what: 'the bundled lessons listed' });
  await run("document.querySelector('#lessons-list button').click();");
  await until(`${TEXT('lesson-where')} === 'Step 1 of 6' && named('Iterations').value === '30'`, { what: 'the first step, set up' });
  assert.equal(await run("return document.getElementById('corpus').value;"), 'names');
  assert.ok(await run("return document.getElementById('corpus').classList.contains('lesson-target');"), 'the Corpus menu marked');
  await run("document.getElementById('lesson-next').click();");
  await until(`${TEXT('lesson-step-title')} === 'Knowing nothing' && document.getElementById('lesson-next').disabled`, { what: 'a step waiting for its run' });
  await press('Train');
  await until("document.getElementById('lesson').dataset.met === 'true'", { timeout: 90000, what: 'the run finished, Next open' });
  assert.match(await run(`return ${TEXT('lesson-wait')};`), /^Done after \d+ s of training: Next is open\.$/);
  await shot('lesson');
  await run("document.getElementById('lesson-back').click();");
  await until(`${TEXT('lesson-where')} === 'Step 1 of 6'`, { what: 'back at step 1' });
  await run("document.getElementById('lesson-leave').click();");
  assert.ok(await run("return document.getElementById('lesson').hidden;"));
  assert.match(await run('return stats();'), /step 30 \/ 30/, 'leaving keeps the run');
  assert.deepEqual(await run('return window.errors;'), []);
}
