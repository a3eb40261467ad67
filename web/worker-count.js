// Automatic worker count: from the first steps of a run, the number of workers that trains it
// fastest on this machine. The reported core count is only an upper bound (WebKit reports 4 on a
// 2-core machine), and the best count depends on the model, so it is measured, not guessed.

/** Steps left untimed after a change: new workers start their engine and warm up. */
const SETTLE_STEPS = 2;
/** Each count is timed over at least this many steps and this long. */
const MIN_STEPS = 3;
const MIN_MS = 500;
/** A count this much slower than the best so far ends the search: fewer will be slower still. */
const SLOWER = 1.1;

/** Counts to try, most first: `most`, then halving down to 1 (8 → 8, 4, 2, 1; 6 → 6, 3, 2, 1). */
export function candidates(most) {
  const counts = [];
  for (let n = Math.max(1, most); ; n = Math.ceil(n / 2)) {
    counts.push(n);
    if (n === 1) return counts;
  }
}

export class WorkerSearch {
  /** `most`: the reported cores, or the step's shards if fewer (more would have nothing to do). */
  constructor(most) {
    this.most = most;
    this.queue = most > 1 ? candidates(most) : [];
    this.timed = []; // { workers, msPerStep }, in the order tried
    this.best = most > 1 ? null : { workers: 1 };
    this.startCount();
  }

  startCount() {
    [this.settling, this.steps, this.ms] = [SETTLE_STEPS, 0, 0];
  }

  /** The count to train with now. */
  get count() {
    return this.queue[0] ?? this.best.workers;
  }

  get settled() {
    return this.queue.length === 0;
  }

  /** Records one step's wall time at the current count; true when the count to use changed. */
  record(ms) {
    if (this.settled) return false;
    if (this.settling > 0) {
      this.settling--;
      return false;
    }
    [this.steps, this.ms] = [this.steps + 1, this.ms + ms];
    if (this.steps < MIN_STEPS || this.ms < MIN_MS) return false;
    const timed = { workers: this.queue.shift(), msPerStep: this.ms / this.steps };
    this.timed.push(timed);
    if (!this.best || timed.msPerStep < this.best.msPerStep) this.best = timed;
    else if (timed.msPerStep > this.best.msPerStep * SLOWER) this.queue = [];
    this.startCount();
    return this.count !== timed.workers;
  }

  /** What the search found or is doing, for the stats line: `{ settled, timed }`. */
  get progress() {
    return { settled: this.settled, timed: this.timed };
  }
}
