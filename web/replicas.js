// The leader's replicas: Web Workers (replica-worker.js) that each compute a share of every
// training step and evaluation. Weights and gradients move as transferable buffers, so this needs
// no special headers from the server, and the same few buffers go back and forth step after step:
// a new 3 MB ArrayBuffer each step cost more time in allocation than the copy into it.
import { yieldToMessages } from './yield.js';

/** Buffers kept per replica: the one each step uses, and one more (odd splits return two). */
const BUFFERS_PER_REPLICA = 2;

/** A replica silent this long is taken for dead (a step takes well under a second). */
const TIMEOUT_MS = 30000;

/** About how long one chunk of an evaluation takes (see `shareChunks`). */
const CHUNK_MS = 400;

/** One replica worker and the jobs it has been sent. */
class Replica {
  constructor(config) {
    this.worker = new Worker(new URL('./replica-worker.js', import.meta.url), { type: 'module' });
    this.jobs = new Map(); // id → { resolve, reject, timer }, in the order sent: the first is under way
    this.failure = null; // why it stopped, once it has
    this.memory = 0; // its wasm memory in bytes, as of its last answer
    this.worker.onmessage = ({ data }) => {
      if (!this.jobs.has(data.id)) return;
      if (data.type === 'error') this.fail(data.message);
      else {
        this.memory = data.memory;
        this.finish(data.id).resolve(data.partials);
      }
    };
    // A crash can come between jobs too: remembered, so the next job fails at once.
    this.worker.onerror = (e) => {
      e.preventDefault(); // handled here: it must not take the leader down with it
      this.fail(e.message || 'it crashed');
    };
    if (config) this.setModel(config);
  }

  setModel(config) {
    this.worker.postMessage({ type: 'model', config });
  }

  /** Ends job `id` and hands back its callbacks. */
  finish(id) {
    const job = this.jobs.get(id);
    this.jobs.delete(id);
    clearTimeout(job.timer);
    this.watch();
    return job;
  }

  /** Times the job under way: a replica silent that long is taken for dead. Queued ones wait. */
  watch() {
    const [job] = this.jobs.values();
    if (job && !job.timer) job.timer = setTimeout(() => this.fail(`no answer in ${TIMEOUT_MS / 1000} s`), TIMEOUT_MS);
  }

  fail(message) {
    this.failure ??= message;
    for (const id of [...this.jobs.keys()]) {
      this.finish(id).reject(new Error(`a training worker stopped (${message}); the model keeps its last good step, and Resume starts the workers afresh`));
    }
  }

  run(id, message, transfer) {
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject, timer: null });
      this.watch();
      if (this.failure) this.fail(this.failure);
      else this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  terminate() {
    this.fail('it was stopped');
    this.worker.terminate();
  }
}

export class Replicas {
  constructor() {
    this.replicas = [];
    this.config = null;
    this.nextId = 0;
    this.buffers = []; // Float32Arrays back from the replicas, for the next step's weights
  }

  /** Keeps `count` replicas running, each with the current model. */
  resize(count) {
    while (this.replicas.length > count) this.replicas.pop().terminate();
    while (this.replicas.length < count) this.replicas.push(new Replica(this.config));
  }

  /** Gives every replica a model shaped by `config` (a run's `settings.model`). */
  setModel(config) {
    this.config = config;
    this.replicas.forEach((r) => r.setModel(config));
  }

  /** Replaces every replica, after one failed. */
  restart() {
    const count = this.replicas.length;
    this.resize(0);
    this.resize(count);
  }

  /**
   * Computes the work `run` just began (`{ plan, shards }`) with the replicas: a step's shards
   * one range to each worker, `run` computing the first; an evaluation's batches in chunks to
   * whichever worker is free, while `live()` (see `shareChunks`). Resolves to the replicas'
   * partials, for `addPartials`.
   */
  share(run, { plan, shards }, inChunks, live) {
    const copyWeights = (buffer) => run.copyWeights(buffer);
    if (inChunks) {
      const here = (first, end) => run.computeShards(first, end);
      return this.shareChunks(plan, copyWeights, run.status.params, shards.at(-1)[1], here, live);
    }
    const theirs = shards.length > 1 ? this.compute(plan, copyWeights, run.status.params, shards.slice(1)) : Promise.resolve([]);
    try {
      run.computeShards(...shards[0]);
    } catch (e) {
      theirs.catch(() => {}); // failed already; its reason is this one or comes too late to matter
      throw e;
    }
    return theirs;
  }

  /** Adds the replicas' `partials` into `run`, and keeps their buffers for later steps. */
  addPartials(run, partials) {
    for (const p of partials) {
      run.addPartial(p.first, p.count, p.loss, p.exact, p.grads);
      this.recycle(p.grads);
    }
  }

  /**
   * Sends replica `i` the plan, the weights (`copyWeights(buffer)` fills a buffer of `length`)
   * and `shards[i]` (a step's shards or an evaluation's batches); resolves to every partial, or
   * rejects when one fails, reports an error, or stays silent too long. Hand each partial's
   * `grads` back with `recycle` once used.
   */
  compute(plan, copyWeights, length, shards) {
    const jobs = shards.map(([first, end], i) => {
      const weights = this.take(length);
      copyWeights(weights);
      // The replica writes its gradients back into the same buffer (a second partial, a new one).
      return this.replicas[i].run(this.nextId++, { type: 'shards', plan, weights, first, end }, [weights.buffer]);
    });
    return Promise.all(jobs).then((lists) => lists.flat());
  }

  /**
   * Shares units `[0, units)` of `plan` (an evaluation's batches, which may go to any worker in
   * any order) out a chunk at a time to whichever worker is free: `computeHere(first, end)` for
   * this worker, between chunks of which the replicas' answers come in, and each replica with
   * two chunks queued so that it never waits for this worker to finish one. A core slowed by other
   * work then computes fewer batches, where equal shares would keep every other core waiting for
   * it. Chunks grow to about CHUNK_MS of this worker's work, and shrink towards the end. Stops
   * handing out chunks once `live()` is false. Resolves to the replicas' partials.
   */
  async shareChunks(plan, copyWeights, length, units, computeHere, live) {
    let [next, size] = [0, 1];
    const take = () => (next < units && live() ? [next, (next = Math.min(units, next + size))] : null);
    const queues = this.replicas.flatMap((replica) => {
      // The plan and weights go with the first chunk only: the replica keeps them.
      let [opening, weights] = [true, this.take(length)];
      copyWeights(weights);
      const queue = async () => {
        const partials = [];
        for (let range; (range = take());) {
          const message = { type: 'shards', plan: opening ? plan : undefined, weights, first: range[0], end: range[1] };
          const transfer = weights ? [weights.buffer] : [];
          [opening, weights] = [false, undefined];
          partials.push(...await replica.run(this.nextId++, message, transfer));
        }
        return partials;
      };
      return [queue(), queue()];
    });
    // A replica's failure waits, handled, until this worker's chunks are done (or have failed).
    const theirs = Promise.all(queues);
    theirs.catch(() => {});
    for (let range; (range = take());) {
      const started = performance.now();
      computeHere(...range);
      const perUnit = (performance.now() - started) / (range[1] - range[0]);
      // No more than a share of what is left, so the workers finish together.
      const share = Math.ceil((units - next) / (2 * (this.replicas.length + 1)));
      size = Math.max(1, Math.min(Math.round(CHUNK_MS / Math.max(perUnit, 1e-3)), share));
      await yieldToMessages(); // lets the replicas' answers in
    }
    return (await theirs).flat();
  }

  /**
   * Orthogonalises the matrices of the update `run` has begun (Muon's Newton–Schulz) with the
   * replicas, each worker its share as the run assigns them (this one, worker 0, computing its
   * own while they compute theirs). Any worker gives a matrix the same bits, so the result never
   * depends on the worker count.
   */
  async orthogonalize(run) {
    const [mine, ...others] = run.newtonSchulzShares(this.replicas.length + 1);
    const jobs = others.map((share, i) => {
      const matrices = share.map((k) => run.updateMatrix(k));
      return this.replicas[i].run(this.nextId++, { type: 'orthogonalize', matrices }, matrices.map((m) => m.values.buffer));
    });
    const theirs = Promise.all(jobs);
    theirs.catch(() => {}); // handled below, once this worker's share is done
    mine.forEach((k) => run.orthogonalize(k));
    for (const m of (await theirs).flat()) run.setOrthogonal(m.k, m.values);
  }

  /** The replicas' wasm memory in bytes, all together. */
  get memory() {
    return this.replicas.reduce((sum, r) => sum + r.memory, 0);
  }

  /** A buffer of `length` floats: one handed back, or a new one. */
  take(length) {
    const i = this.buffers.findIndex((b) => b.length === length);
    return i >= 0 ? this.buffers.splice(i, 1)[0] : new Float32Array(length);
  }

  /** Takes back a buffer for later steps (an evaluation's partials bring empty ones). */
  recycle(buffer) {
    if (buffer.length && this.buffers.length < BUFFERS_PER_REPLICA * this.replicas.length) this.buffers.push(buffer);
  }
}
