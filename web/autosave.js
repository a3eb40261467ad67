// In the training worker: keeps the current run saved in IndexedDB (run-store.js) at every
// evaluation and on pause, so a reload never costs more than one evaluation interval. A failed
// save (a full quota, storage refused) is reported once, and training goes on.
import { t } from './i18n.js';
import { listRuns, saveRun, storageProblem } from './run-store.js';

const newId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** `name`, or `name-2`, `name-3`… if a saved run has it already. */
async function uniqueName(name) {
  const taken = new Set((await listRuns().catch(() => [])).map((r) => r.name));
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name}-${i}`;
  return candidate;
}

export class Autosave {
  constructor(post) {
    this.post = post;
    this.current = null; // { id, name, named, corpus, corpusId, textSaved }
    this.inFlight = null;
    this.again = false;
    this.broken = null; // why saving stopped, once it has
  }

  /**
   * Keeps a new run from now on: `name` (made unique at its first save, so that a slow storage
   * never holds up training) and where its text came from. A saved run (`id`) keeps its name.
   */
  start({ name, corpus, corpusId, id }) {
    this.current = { id: id ?? newId(), name, named: Boolean(id), corpus, corpusId, textSaved: Boolean(id) };
  }

  forget() {
    this.current = null;
  }

  /** The run trains on another text now: the next save stores it. */
  textChanged() {
    if (this.current) this.current.textSaved = false;
  }

  /**
   * Saves `run` with its `text` and the page's fields (`page`): at most one save at a time; a
   * request while one runs saves again when it ends, with the state then.
   */
  save(getState) {
    if (!this.current || this.broken) return Promise.resolve();
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = this.write(getState()).finally(() => {
      this.inFlight = null;
      if (this.again) {
        this.again = false;
        this.save(getState);
      }
    });
    return this.inFlight;
  }

  async write({ run, text, page }) {
    const { settings, history } = run.details;
    const status = run.status;
    const bytes = run.save();
    const current = this.current;
    if (!current.named) {
      current.name = await uniqueName(current.name);
      current.named = true;
    }
    const record = {
      id: current.id, name: current.name, corpus: current.corpus, corpusId: current.corpusId,
      params: status.params, step: status.step, maxIters: status.max_iters, bestVal: status.best_val_loss ?? null,
      size: bytes.byteLength + (text?.length ?? 0), savedAt: Date.now(), page, settings,
      history: { losses: history.losses, evals: history.evals, seconds: history.seconds },
    };
    try {
      await saveRun(record, bytes, current.textSaved || !text ? undefined : text);
      current.textSaved ||= Boolean(text);
      this.post({ type: 'autosaved', record: { ...record, history: undefined } });
    } catch (e) {
      this.broken = storageProblem(e);
      this.post({ type: 'storage', message: t('autosave.stopped', { reason: this.broken }) });
    }
  }
}
