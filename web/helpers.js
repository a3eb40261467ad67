// The run's helpers: Web Workers (helper-worker.js), each with a copy of the model and optimiser,
// that compute what the run orders: shares of every training step and evaluation, each step's
// update applied to their copy as the run applies it. The run (in the engine)
// plans the work, says what to do next and takes each reply in; this module only carries the
// messages. An order's and a reply's floats travel as transferable buffers, so this needs no
// special headers from the server, and each side keeps the buffers it is sent for what it sends.
import { t, workerUrl } from './i18n.js';
import { yieldToMessages } from './yield.js';

/** A helper silent this long is taken for dead (a step takes well under a second). */
const TIMEOUT_MS = 30000;

/** Helpers' copies made so far, which number them: the run knows each copy by its number. */
let made = 0;

/** One helper Web Worker and the orders it has been sent. */
class Helper {
  constructor(config, features) {
    this.id = ++made;
    this.worker = new Worker(workerUrl('./helper-worker.js', import.meta.url), { type: 'module' });
    this.jobs = new Map(); // id → { resolve, reject, timer }, in the order sent: the first is under way
    this.failure = null; // why it stopped, once it has
    this.memory = 0; // its wasm memory in bytes, as of its last answer
    this.worker.onmessage = ({ data }) => {
      if (!this.jobs.has(data.id)) return;
      if (data.type === 'error') this.fail(data.message);
      else {
        this.memory = data.memory;
        this.finish(data.id).resolve({ header: data.header, data: data.data });
      }
    };
    // A crash can come between orders too: remembered, so the next order fails at once.
    this.worker.onerror = (e) => {
      e.preventDefault(); // handled here: it must not take the run's worker down with it
      this.fail(e.message || t('helpers.crashed'));
    };
    if (config) this.setModel(config, features);
  }

  /** A copy of the model `config` describes, or with `features` (a dictionary's shape: an answer's `copy`) of that autoencoder or those transcoders on it. */
  setModel(config, features) {
    this.id = ++made; // a new copy, which holds nothing of the run's yet
    this.worker.postMessage({ type: 'model', config, features });
  }

  /** Ends order `id` and hands back its callbacks. */
  finish(id) {
    const job = this.jobs.get(id);
    this.jobs.delete(id);
    clearTimeout(job.timer);
    this.watch();
    return job;
  }

  /** Times the order under way: a helper silent that long is taken for dead. Queued ones wait. */
  watch() {
    const [job] = this.jobs.values();
    if (job && !job.timer) job.timer = setTimeout(() => this.fail(t('helpers.silent', { seconds: TIMEOUT_MS / 1000 })), TIMEOUT_MS);
  }

  fail(message) {
    this.failure ??= message;
    for (const id of [...this.jobs.keys()]) {
      this.finish(id).reject(Object.assign(new Error(t('helpers.stopped', { reason: message })), { workerStopped: true }));
    }
  }

  /** Sends `order` ({header, data?}, its buffer moved; the dictionary's when `features`); resolves to the reply ({header, data?}). */
  send(id, { header, data }, features) {
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject, timer: null });
      this.watch();
      if (this.failure) this.fail(this.failure);
      else this.worker.postMessage({ type: 'order', id, header, data, features }, data ? [data.buffer] : []);
    });
  }

  terminate() {
    this.fail(t('helpers.terminated'));
    this.worker.terminate();
  }
}

export class Helpers {
  constructor() {
    this.list = [];
    this.config = null;
    this.features = null; // the dictionary's shape while the helpers hold copies of it
    this.nextId = 0;
  }

  /** Keeps `count` helpers running, each with the current model. */
  resize(count) {
    while (this.list.length > count) this.list.pop().terminate();
    while (this.list.length < count) this.list.push(new Helper(this.config, this.features));
  }

  /** Gives every helper a model shaped by `config` (a run's `settings.model`). */
  setModel(config) {
    this.config = config;
    this.features = null;
    this.list.forEach((h) => h.setModel(config));
  }

  /** Has every helper hold a copy of the model, or with `features` (a dictionary's shape) of it; only a change is sent. */
  hold(features) {
    if (JSON.stringify(features) === JSON.stringify(this.features)) return;
    this.features = features;
    this.list.forEach((h) => h.setModel(this.config, features));
  }

  /** Replaces every helper, after one failed. */
  restart() {
    const count = this.list.length;
    this.resize(0);
    this.resize(count);
  }

  /**
   * Does work `kind` ('step', 'evaluation', or with `features` 'feature-step' or 'transcoder-step') on `run` with the helpers, and resolves to its
   * outcome; or to null when `live()` turns false first, the work given up. The run says what
   * comes next: a share of its own work (during an evaluation, then a look at the page's
   * messages) or a wait for a reply. Each reply goes straight back to the run, and the orders it
   * frees go out at once.
   * Rejects when a helper fails, or the run refuses what came back.
   */
  async perform(run, kind, live, features = null) {
    this.hold(features);
    let [open, failure, wake] = [true, null, null];
    const woken = (error) => {
      if (error) failure ??= error;
      const w = wake;
      wake = null;
      if (error) w?.reject(error);
      else w?.resolve();
    };
    const send = (orders) => {
      for (const order of orders) {
        this.list[order.to - 1].send(this.nextId++, order, features !== null).then((reply) => {
          if (!open) return; // the work was given up, or the model replaced
          try {
            send(run.accept(reply.header, reply.data));
            woken();
          } catch (e) {
            woken(e);
          }
        }, (e) => open && woken(e));
      }
    };
    try {
      let progress = run.begin(kind, Uint32Array.from(this.list, (h) => h.id));
      for (;;) {
        send(progress.orders);
        if (progress.next === 'done') return progress.outcome;
        if (!live()) {
          run.abort();
          return null;
        }
        if (progress.next === 'wait') await new Promise((resolve, reject) => { wake = { resolve, reject }; if (failure) woken(failure); });
        // A step's own parts run straight on (a yield costs 0.3-0.5 ms): its replies come in while
        // it waits, and the trainer looks at the page's messages between steps. An evaluation's
        // chunks let replies and Pause in as they go.
        else if (kind !== 'step') await yieldToMessages();
        if (failure) throw failure;
        progress = run.advance();
      }
    } finally {
      open = false;
    }
  }

  /** The helpers' wasm memory in bytes, all together. */
  get memory() {
    return this.list.reduce((sum, h) => sum + h.memory, 0);
  }
}
