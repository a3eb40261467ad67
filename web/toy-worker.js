// A toy model of superposition trained away from the page (superposition-panel.js): one worker
// trains the model it is given, another draws its share of a phase diagram's cells. The page
// stops either by ending the worker, so nothing here waits to be told.
// Messages in:  train {settings, steps, seed}, cell {spec, index}.
// Messages out: status {status} (several a second, and the last when done), done,
//               cell {cell}, error {message}.

import { errorText, useWorkerLanguage } from './i18n.js';

// Loaded after onmessage is set, so no message can arrive before there is a listener.
const engine = import('./wasm.js');
const language = useWorkerLanguage();
/** How often a training run shows its geometry (ms): often enough to watch it move. */
const SHOW_EVERY = 80;
/** Steps between looks at the clock: a step of a small toy model takes microseconds. */
const CHUNK = 25;

self.onmessage = async ({ data }) => {
  try {
    await language;
    const { loadError, ToyRun, phaseCell } = await engine;
    if (loadError()) throw new Error(loadError());
    if (data.type === 'train') train(new ToyRun(data.settings, data.steps, data.seed));
    else if (data.type === 'cell') self.postMessage({ type: 'cell', cell: phaseCell(data.spec, data.index) });
  } catch (e) {
    self.postMessage({ type: 'error', message: errorText(e) });
  }
};

function train(run) {
  let shown = 0;
  for (;;) {
    const status = run.train(CHUNK);
    const done = status.step >= status.steps;
    if (done || performance.now() - shown > SHOW_EVERY) {
      self.postMessage({ type: 'status', status });
      shown = performance.now();
    }
    if (done) break;
  }
  self.postMessage({ type: 'done' });
  run.free();
}
