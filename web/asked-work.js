// The work the views ask for that the helpers share, as a step is shared: every edge of the
// circuit to find, patched exactly, and the LLC's chains. One ask at a time holds the run: a new
// ask, Train, or an autoencoder's training first gives up the one under way and waits for it to let
// go, so two jobs never take turns on the run (each would advance the other's).

/** The jobs the views' questions ask for: only those of views on show. */
function jobsOf({ views: shown, questions }) {
  const jobs = [
    shown.includes('circuit') && questions.circuit?.find && { circuit: questions },
    shown.includes('llc') && questions.llc?.estimate && { llc: questions.llc },
  ];
  return jobs.filter(Boolean);
}

export class AskedWork {
  /** `trainer` (trainer.js) holds the run and its helpers. */
  constructor(trainer) {
    this.trainer = trainer;
    this.latest = null; // the last ask: { stopped, done }
  }

  /**
   * Shares what `inside` (the views on show and their questions) asks for, once the ask before has
   * let go: true unless it was given up meanwhile. A failure is left for the view to tell, as it
   * computes alone.
   */
  async share(inside) {
    const before = this.latest;
    const work = { stopped: false };
    this.latest = work;
    work.done = (async () => {
      if (before) await this.giveUp(before);
      for (const job of jobsOf(inside)) {
        if (work.stopped || !this.trainer.run) return;
        try {
          await this.trainer.perform(this.trainer.modelId, job, () => !work.stopped);
        } catch {
          // the view says why
        }
      }
    })();
    await work.done;
    return !work.stopped;
  }

  /** Gives up the ask under way, if any, and waits until it has let go of the run. */
  stop() {
    return this.latest ? this.giveUp(this.latest) : Promise.resolve();
  }

  async giveUp(work) {
    work.stopped = true;
    await work.done;
  }
}
