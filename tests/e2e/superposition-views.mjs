// The Superposition section as the WebDriver tests (Firefox, WebKit) drive it: the toy model of 5
// sparse features in 2 dimensions trained in its own worker into a pentagon, and a small phase
// diagram drawn by the workers, every cell in one of the three phases; and an autoencoder that finds
// 64 known features in 32 dimensions, scored against them.
import assert from 'node:assert/strict';

const TEXT = (id) => `document.getElementById('${id}').textContent`;

export async function checkSuperposition({ run, until, shot }) {
  await run(`const s = document.getElementById('toy'); if (!s.open) s.querySelector('summary').click();
    document.getElementById('toy-train').click();`);
  await until(`/^Step 3,000 of 3,000 in /.test(${TEXT('toy-status')})`, { what: 'the toy model trained', timeout: 60000 });
  const rows = await run("return [...document.querySelectorAll('#toy-table tbody tr')].map((r) => [...r.cells].map((c) => Number(c.textContent)));");
  assert.equal(rows.length, 5);
  for (const [, , norm, dimensionality] of rows) assert.ok(norm > 0.5 && Math.abs(dimensionality - 0.4) < 0.05, `a pentagon: ${rows}`);
  assert.equal(await run("return document.querySelectorAll('#toy-arrows line').length;"), 5);
  await run(`const side = document.getElementById('toy-phase-side'); side.value = '4'; side.dispatchEvent(new Event('input', { bubbles: true }));
    document.getElementById('toy-phase-draw').click();`);
  await until(`/^16 cells in /.test(${TEXT('toy-phase-status')})`, { what: 'the phase diagram drawn', timeout: 60000 });
  const [, notStored, alone, superposed] = (await run(`return ${TEXT('toy-phase-status')};`)).match(/(\d+) not stored, (\d+) alone, (\d+) in superposition/).map(Number);
  assert.equal(notStored + alone + superposed, 16);
  await run("document.getElementById('toy-sae-train').click();");
  await until(`/^Step 1,000 of 1,000 in .*: 64 of the 64 true features found\\.$/.test(${TEXT('toy-sae-status')})`, { what: 'the autoencoder trained', timeout: 90000 });
  const mcc = await run("return Number(document.querySelector('#toy-sae-scores dd').textContent);");
  assert.ok(mcc > 0.95, `MCC ${mcc}`);
  await run("document.getElementById('toy').scrollIntoView();");
  await shot('superposition');
  assert.deepEqual(await run('return window.errors;'), []);
}
