// A helper: a copy of the model and its optimiser that answers the run's orders (shares of its
// steps and evaluations) with replies (see helpers.js). It holds no text.
// Messages in:  model {config, features?}, order {id, header, data?, features?} (data: the order's floats,
//               moved; features: a dictionary's shape, or whether the order is for its copy).
// Messages out: reply {id, header, data?, memory} (data: the reply's floats, in a buffer an
//               order brought when one holds them; memory: this helper's wasm memory in bytes),
//               error {id, message}.

import { errorText, useWorkerLanguage } from './i18n.js';

// Loaded after onmessage is set, so no message can arrive before there is a listener.
const engine = import('./wasm.js');
const language = useWorkerLanguage();
let replica = null;

self.onmessage = async ({ data }) => {
  try {
    await language;
    const { loadError, Replica, memoryBytes } = await engine;
    if (loadError()) throw new Error(loadError());
    if (data.type === 'model') {
      replica?.free();
      replica = new Replica(data.config, data.features ?? undefined);
    } else if (data.type === 'order') {
      const reply = replica.answer(data.header, data.data, Boolean(data.features));
      self.postMessage({ type: 'reply', id: data.id, ...reply, memory: memoryBytes() }, reply.data ? [reply.data.buffer] : []);
    }
  } catch (e) {
    self.postMessage({ type: 'error', id: data.id, message: errorText(e) });
  }
};
