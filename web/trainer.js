// In the training worker (worker.js): the run it holds and the loop that trains it. Each step is
// shared with the helpers (helpers.js), evaluations run when the schedule calls for them, and
// progress and live views go to the page as it goes, until the run ends, the page pauses it, or
// another model replaces it.
import { Helpers } from './helpers.js';
import { WorkerSearch } from './worker-count.js';
import { yieldToMessages } from './yield.js';

/** Milliseconds of work between looks at the page's messages: short, so Pause is quick. */
const CHUNK_MS = 80;
/**
 * How often progress goes to the page while training: often enough to look live. Each report
 * costs the page a frame (about 6 ms of its main thread and 2 ms of its compositor), which a
 * spare core absorbs; with a worker on every core it lands on one of them and holds up the
 * step both share, so then the page is told half as often (see docs/benchmarks.md).
 */
const REPORT_EVERY_MS = 250;
/** How often the attention maps and next-token list are recomputed while training. */
const VIEWS_EVERY_MS = 1000;
/** How much less often both happen while every core trains. */
const BUSY_SLOWER = 2;

export class Trainer {
  /**
   * `hooks`: `post(message)` to the page, `views` (worker-views.js), `save()` the run now,
   * `report(context, error)` a failure, `memoryBytes()` of this worker's wasm memory, and
   * `shareAsked()`: the work the views asked for while it trained, shared among the workers now.
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.run = null; // the wasm Run, or null
    this.modelId = 0; // counts models: a training loop over an older model stops quietly
    this.running = false;
    this.workers = 1; // this worker and its helpers
    this.choice = { count: 1 }; // the page's: a count, or 'auto' with the most to try
    this.search = null; // the automatic count's search, for the run it timed
    this.featureSearch = null; // the same, for its autoencoder's steps
    this.sharing = 0; // work under way: while the helpers have work out, a new worker count waits
    this.helpers = new Helpers();
  }

  /** Makes `next` the run, freeing the one before; a loop over that one stops. */
  adopt(next) {
    this.run?.free();
    this.replace(next);
    this.search = this.featureSearch = null; // another model: another best count
    this.helpers.setModel(next.details.settings.model);
  }

  /** Drops the run: freed, unless its wasm instance has trapped (nothing runs in it then). */
  drop(trapped = false) {
    if (!trapped) this.run?.free();
    this.replace(null);
  }

  replace(run) {
    this.run = run;
    this.modelId++;
    this.running = false;
  }

  /** Stops the loop after the step under way (an evaluation part-way: see evaluateIfDue). */
  pause() {
    this.running = false;
  }

  /**
   * The page's choice: `count` workers (this one and count - 1 helpers) from the next step, or
   * with `count` 'auto' the count that trains this run fastest, up to `most`.
   */
  chooseWorkers(choice) {
    this.choice = choice;
    this.search = this.featureSearch = null;
    if (choice.count === 'auto') this.searchWorkers();
    else this.setWorkers(choice.count);
  }

  /** Starts timing counts for the run (again, if a step's shards changed), or goes on with it. */
  searchWorkers() {
    if (this.choice.count !== 'auto' || !this.run) return;
    const most = Math.min(this.choice.most, this.run.status.shards);
    if (this.search?.most !== most) this.search = new WorkerSearch(most);
    this.setWorkers(this.search.count);
  }

  setWorkers(count) {
    this.workers = count;
    if (this.sharing === 0) this.applyWorkers();
  }

  applyWorkers() {
    this.helpers.resize(this.workers - 1);
  }

  /**
   * Does work `kind` ('step', 'evaluation', or with `features` (a dictionary's shape, an answer's
   * `copy`) its step, 'feature-step' or 'transcoder-step') for model `id` with the helpers, while `live()`: a new worker count waits
   * until it ends. Resolves to its outcome, null when `live()` turned false first (the work given
   * up), or false if the model was replaced meanwhile.
   */
  async perform(id, kind, live = () => true, features = null) {
    this.sharing++;
    try {
      const outcome = await this.helpers.perform(this.run, kind, () => id === this.modelId && live(), features);
      return id === this.modelId && outcome;
    } catch (e) {
      if (id !== this.modelId) return false;
      this.run.abort();
      if (e.workerStopped) this.helpers.restart(); // fresh ones for the next work
      throw e;
    } finally {
      if (--this.sharing === 0) this.applyWorkers();
    }
  }

  /** The evaluation the schedule calls for now, if any, shared like a step; false if the model was replaced. */
  async evaluateIfDue(id) {
    if (!this.run.status.eval_due) return true;
    // A pause drops an evaluation part-way, so Pause need not wait for a long one; it is still
    // due on Resume.
    const evaluation = await this.perform(id, 'evaluation', () => this.running);
    if (!evaluation) return evaluation === null;
    // The share the views' records took comes after the last report: the evaluation adds its own.
    const { milestones, records_share: recordsShare } = this.run.status;
    this.hooks.post({ type: 'eval', evaluation, milestones, recordsShare });
    this.hooks.views.deep(this.run);
    this.hooks.save();
    return true;
  }

  /**
   * Steps the run's autoencoder or transcoders (`answer`: where they stand, as the run last said) with the helpers
   * for about a chunk of time, or to its last step: the steps taken, or null if the model was
   * replaced. The workers
   * are the page's count, or with 'auto' the fastest count for these steps, timed as for the model's.
   */
  async stepFeatures(id, { copy, job, shards, step, steps }) {
    const { count, most } = this.choice;
    if (count === 'auto' && this.featureSearch?.most !== Math.min(most, shards)) {
      this.featureSearch = new WorkerSearch(Math.min(most, shards));
    }
    this.setWorkers(count === 'auto' ? this.featureSearch.count : count);
    const started = performance.now();
    let taken = 0;
    while (step + taken < steps && performance.now() - started < CHUNK_MS) {
      const began = performance.now();
      if (!await this.perform(id, job, () => true, copy)) return null;
      taken++;
      if (this.featureSearch?.record(performance.now() - began)) this.setWorkers(this.featureSearch.count);
    }
    return taken;
  }

  /** The wasm memory of every worker, in bytes (the helpers' as their last replies said). */
  memory() {
    return this.hooks.memoryBytes() + this.helpers.memory;
  }

  /** Trains until the run ends, the page pauses it, or another model replaces it. */
  async train() {
    const { post, views, report } = this.hooks;
    let [lastViews, lastReport, unreported] = [0, 0, false];
    const id = this.modelId;
    const run = this.run;
    this.running = true;
    const unfinished = ({ step, max_iters: end }) => step < end;
    const every = (ms) => (this.workers >= (navigator.hardwareConcurrency || 1) ? ms * BUSY_SLOWER : ms);
    const reportProgress = () => {
      const memory = this.memory();
      if (unreported) post({ type: 'progress', report: run.takeReport(), memory, search: this.search?.progress });
      [lastReport, unreported] = [performance.now(), false];
    };
    this.searchWorkers();
    try {
      if (!await this.evaluateIfDue(id)) return;
      while (this.running && id === this.modelId && unfinished(run.status)) {
        // Steps until a chunk of time has passed or an evaluation is due; a report when one is
        // due too. The first chunk is one step, so the page shows the starting loss at once. The
        // status crosses from wasm as a new object, so each step reads it once.
        const started = performance.now();
        const more = (status = run.status) =>
          lastReport > 0 && performance.now() - started < CHUNK_MS && !status.eval_due && unfinished(status);
        do {
          const began = performance.now();
          if (!await this.perform(id, 'step')) return;
          if (this.search?.record(performance.now() - began)) this.setWorkers(this.search.count);
          unreported = true;
        } while (more());
        if (run.status.eval_due || performance.now() - lastReport >= every(REPORT_EVERY_MS)) reportProgress();
        if (!await this.evaluateIfDue(id)) return;
        if (performance.now() - lastViews > every(VIEWS_EVERY_MS)) {
          views.live(run);
          lastViews = performance.now();
        }
        await yieldToMessages();
      }
    } catch (e) {
      this.running = false;
      if (id !== this.modelId) return;
      if (!(e instanceof WebAssembly.RuntimeError)) reportProgress(); // the steps before the failure
      report('train', e);
      return;
    }
    if (id !== this.modelId) return;
    this.running = false;
    reportProgress();
    views.live(run);
    // The page hears it stopped first: the views' asks take seconds, and Train gives them up.
    const { step: at, max_iters: end, eval_due: evalDue } = run.status;
    post({ type: at >= end && !evalDue ? 'finished' : 'paused' });
    this.hooks.save();
    views.walk(run);
    // An ask given up (to Train, or to a later ask) leaves the views to what replaced it.
    if (await this.hooks.shareAsked() && id === this.modelId && !this.running) views.insideViews(run);
  }
}
