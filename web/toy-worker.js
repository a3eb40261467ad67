// Toy jobs trained away from the page (superposition-panel.js, toy-autoencoder-panel.js): one
// worker trains the toy model or the autoencoder it is given, another draws its share of a phase
// diagram's cells. The page stops either by ending the worker, so nothing here waits to be told.
// Messages in:  train {job} (the core's ToyJob), cell {spec, index}.
// Messages out: progress {progress} (several a second, and the last when done), done,
//               cell {cell}, error {message}.

import { errorText, useWorkerLanguage } from './i18n.js';

// Loaded after onmessage is set, so no message can arrive before there is a listener.
const engine = import('./wasm.js');
const language = useWorkerLanguage();
/** How often a job shows where it stands (ms): often enough to watch it move. */
const SHOW_EVERY = 80;
/** Showing may take at most this share of the time: an autoencoder's scores cost a pass over rows. */
const SHOWING_SHARE = 0.2;
/** Steps between looks at the clock: a step of a toy job takes microseconds to a millisecond. */
const CHUNK = 25;

self.onmessage = async ({ data }) => {
  try {
    await language;
    const { loadError, Toy, phaseCell } = await engine;
    if (loadError()) throw new Error(loadError());
    if (data.type === 'train') train(new Toy(data.job));
    else if (data.type === 'cell') self.postMessage({ type: 'cell', cell: phaseCell(data.spec, data.index) });
  } catch (e) {
    self.postMessage({ type: 'error', message: errorText(e) });
  }
};

function train(toy) {
  let [shown, cost] = [-Infinity, 0];
  for (;;) {
    const done = toy.train(CHUNK);
    if (done || performance.now() - shown > Math.max(SHOW_EVERY, cost / SHOWING_SHARE)) {
      const started = performance.now();
      self.postMessage({ type: 'progress', progress: toy.progress() });
      shown = performance.now();
      cost = shown - started;
    }
    if (done) break;
  }
  self.postMessage({ type: 'done' });
  toy.free();
}
