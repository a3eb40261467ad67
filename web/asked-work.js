// The work the views ask for, as jobs of the run that the helpers share, as a step is shared:
// every edge of the circuit to find, patched exactly; the LLC's chains; and each head's LLC at the
// live LLC's records, a record a job, its chains starting from the weights the run kept there
// (`heads_llc`, the page's own question: the core's heads view says how many records wait). One
// ask at a time holds the run: a new ask, Train, or an autoencoder's training first gives up the
// one under way and waits for it to let go, so two jobs never take turns on the run (each would
// advance the other's).
import { yieldToMessages } from './yield.js';

/** The jobs the views' questions ask for: only those of views on show. */
function jobsOf({ views: shown, questions }) {
  const jobs = [
    shown.includes('circuit') && questions.circuit?.find && { circuit: questions },
    shown.includes('llc') && questions.llc?.estimate && { llc: questions.llc },
    shown.includes('heads') && questions.heads_llc && 'heads-llc',
  ];
  return jobs.filter(Boolean);
}

export class AskedWork {
  /**
   * `trainer` (trainer.js) holds the run and its helpers; `save()` saves the run; `show()` sends
   * the views again, with what is done so far.
   */
  constructor(trainer, { save, show }) {
    Object.assign(this, { trainer, save, show });
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
    const live = () => !work.stopped;
    work.done = (async () => {
      if (before) await this.giveUp(before);
      for (const job of jobsOf(inside)) {
        if (work.stopped || !this.trainer.run) return;
        try {
          if (job === 'heads-llc') await this.estimateHeads(live);
          else await this.trainer.perform(this.trainer.modelId, job, live);
        } catch {
          // the view says why
        }
      }
    })();
    await work.done;
    return !work.stopped;
  }

  /** Each head's LLC at the records waiting for it, a record at a time, each shown when done. */
  async estimateHeads(live) {
    const id = this.trainer.modelId;
    let estimated = 0;
    while (live()) {
      const left = (await this.trainer.perform(id, 'heads-llc', live))?.left;
      if (typeof left !== 'number') break; // none waited, or the model was replaced
      estimated++;
      if (left === 0) break; // the asker shows the last, with the other asks' answers
      if (live()) this.show();
      await yieldToMessages(); // a Train or another ask comes in between records
    }
    if (estimated && id === this.trainer.modelId) this.save();
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
