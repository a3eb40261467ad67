// A training replica: a copy of the model that computes the shards of each step (or the batches
// of each evaluation) the leader (worker.js) hands it, and sends back their gradients (or
// losses). It holds no text and no optimiser.
// Messages in:  model {config}, shards {id, plan?, weights?, first, end} (without a plan or
//               weights: the ones sent last), orthogonalize {id, matrices: [{k, rows, cols, values}]}
//               (Muon's Newton–Schulz on matrices of the leader's update).
// Messages out: partials {id, partials, memory} (the first partial's gradients in the weights'
//               buffer; for orthogonalize, the matrices, each in its own buffer; memory: this
//               replica's wasm memory in bytes), error {id, message}.

// Loaded after onmessage is set, so no message can arrive before there is a listener.
const engine = import('./wasm.js');
let replica = null;

self.onmessage = async ({ data }) => {
  try {
    const { loadError, Replica, memoryBytes, orthogonalize } = await engine;
    if (loadError) throw new Error(loadError);
    if (data.type === 'model') {
      replica?.free();
      replica = new Replica(data.config);
    } else if (data.type === 'shards') {
      if (data.weights) replica.setWeights(data.weights); // else the last ones sent still hold
      const partials = replica.compute(data.plan, data.first, data.end, data.weights ? [data.weights] : []);
      self.postMessage({ type: 'partials', id: data.id, partials, memory: memoryBytes() }, partials.map((p) => p.grads.buffer));
    } else if (data.type === 'orthogonalize') {
      for (const m of data.matrices) orthogonalize(m.values, m.rows, m.cols);
      self.postMessage({ type: 'partials', id: data.id, partials: data.matrices, memory: memoryBytes() }, data.matrices.map((m) => m.values.buffer));
    }
  } catch (e) {
    self.postMessage({ type: 'error', id: data.id, message: e?.message ?? String(e) });
  }
};
