// The training worker: owns the wasm Run so the page's thread never blocks on the model. It
// leads replicas (replicas.js) that compute a share of every step when there are several
// workers, and keeps the run saved (autosave.js).
// Messages in:  create {settings, text, budget, attentionText, name, corpus, corpusId},
//               load {bytes, text, attentionText, name}, restore, open-saved {id}, train {settings?, budget?},
//               workers {count}, pause, reset, save, download {id}, rename {id, name}, delete {id},
//               use-text {text}, fit-text {text}, sample {options}, attention {text},
//               next {prompt, temperature}, inside {open, probe}.
// Messages out: ready, created, loaded {..., restored?, textProblem?}, saved {bytes, step, name},
//               progress {report, memory (wasm bytes, all workers)}, eval {evaluation}, attention {maps}, next-tokens {next},
//               inside {inside, timelapse?}, sample-chunk {text}, sample-done, paused, finished,
//               autosaved {record}, storage {message}, text-ok, text-problem {missing, message},
//               text-fitted {text}, runs-changed, nothing-saved,
//               error {context, message, field?} (context: the message type that failed; field: the
//               setting at fault, if one is), crashed {message}.
import { Autosave } from './autosave.js';
import { Replicas } from './replicas.js';
import { deleteRun, listRuns, loadRun, updateRun } from './run-store.js';
import { Views } from './worker-views.js';
import { yieldToMessages } from './yield.js';

/** Milliseconds of work between looks at the page's messages: short, so Pause is quick. */
const CHUNK_MS = 80;
/**
 * How often progress goes to the page while training: often enough to look live. Each report
 * costs the page a frame, and with a worker on every core that time comes out of training
 * (drawing 12 reports a second took 14% of a core, all of it from the workers).
 */
const REPORT_EVERY_MS = 250;
/** How often the attention maps and next-token list are recomputed while training. */
const VIEWS_EVERY_MS = 1000;

let run = null;
let runText = ''; // the text the run trains on ('' when none fits it)
let running = false;
let sampleRequest = 0; // counts sample requests: a new one (or a new model) cancels the old
let modelId = 0; // counts models: a training loop over an older model stops quietly
let workers = 1; // this worker and its replicas
let sharing = 0; // shares under way: while the replicas have work out, a new worker count waits
const replicas = new Replicas();

const post = (message, transfer = []) => self.postMessage(message, transfer);
const views = new Views(post, report);
const autosave = new Autosave(post);
const saveNow = () => autosave.save(() => ({ run, text: runText, page: views.fields() }));

function report(context, error) {
  // A trap means a panic escaped: the instance is gone, so nothing more can run.
  if (error instanceof WebAssembly.RuntimeError) {
    running = false;
    run = null;
    modelId++;
    post({ type: 'crashed', message: `${error.message}. See the console for details.` });
  } else {
    post({ type: 'error', context, message: error?.message ?? String(error), field: error?.field });
  }
}

/**
 * Shares the work just begun (`{ plan, shards }` from beginStep or beginEvaluation) among the
 * workers (`Replicas.share`), and adds the replicas' partials in. Returns false if the model was
 * replaced meanwhile.
 */
async function share(id, work, inChunks = false) {
  sharing++;
  try {
    const live = () => id === modelId && running; // a pause drops an evaluation: see evaluateIfDue
    const partials = await replicas.share(run, work, inChunks, live);
    if (id !== modelId) return false;
    replicas.addPartials(run, partials);
    return true;
  } catch (e) {
    if (id !== modelId) return false;
    run.abortStep();
    throw e;
  } finally {
    if (--sharing === 0) applyWorkers();
  }
}

/** Keeps as many replicas as the page asks for (less this worker), and tells the run. */
function applyWorkers() {
  replicas.resize(workers - 1);
  run?.setWorkers(workers);
}

/** One training step of model `id`, shared among the workers; false if the model was replaced. */
async function step(id) {
  if (!await share(id, run.beginStep())) return false;
  run.finishStep();
  return true;
}

/** The evaluation the schedule calls for now, if any, shared like a step; false as for a step. */
async function evaluateIfDue(id) {
  if (!run.status.eval_due) return true;
  if (!await share(id, run.beginEvaluation(), true)) return false;
  if (!running) {
    // Paused part-way: the evaluation is dropped, so Pause need not wait for a long one, and
    // is still due on Resume.
    run.abortStep();
    return true;
  }
  post({ type: 'eval', evaluation: run.finishEvaluation() });
  views.insideViews(run);
  saveNow();
  return true;
}

async function train() {
  let [lastViews, lastReport, unreported] = [0, 0, false];
  const id = modelId;
  running = true;
  const unfinished = ({ step, max_iters: end }) => step < end;
  const reportProgress = () => {
    if (unreported) post({ type: 'progress', report: run.takeReport(), memory: memoryBytes() + replicas.memory });
    [lastReport, unreported] = [performance.now(), false];
  };
  try {
    if (!await evaluateIfDue(id)) return;
    while (running && id === modelId && unfinished(run.status)) {
      // Steps until a chunk of time has passed or an evaluation is due; a report when one is due
      // too. The status crosses from wasm as a new object, so each step reads it once.
      const started = performance.now();
      const more = (status = run.status) => performance.now() - started < CHUNK_MS && !status.eval_due && unfinished(status);
      do {
        if (!await step(id)) return;
        unreported = true;
      } while (more());
      if (run.status.eval_due || performance.now() - lastReport >= REPORT_EVERY_MS) reportProgress();
      if (!await evaluateIfDue(id)) return;
      if (performance.now() - lastViews > VIEWS_EVERY_MS) {
        views.live(run);
        lastViews = performance.now();
      }
      await yieldToMessages();
    }
  } catch (e) {
    running = false;
    if (id !== modelId) return;
    if (!(e instanceof WebAssembly.RuntimeError)) reportProgress(); // the steps before the failure
    if (e.message?.startsWith('a training worker stopped')) replicas.restart(); // fresh ones for Resume
    report('train', e);
    return;
  }
  if (id !== modelId || !run) return;
  running = false;
  reportProgress();
  views.live(run);
  views.insideViews(run);
  const { step: at, max_iters: end, eval_due: evalDue } = run.status;
  post({ type: at >= end && !evalDue ? 'finished' : 'paused' });
  saveNow();
}

async function sample(options) {
  const request = ++sampleRequest;
  run.startSample(options);
  for (;;) {
    if (request !== sampleRequest || !run) return;
    const chunk = run.sampleNext(4);
    if (chunk === undefined) break;
    post({ type: 'sample-chunk', text: chunk });
    await yieldToMessages();
  }
  post({ type: 'sample-done' });
}

/** Swaps in a newly built run; the caller builds it first, so a rejected one leaves the old. */
function adopt(next, { attentionText, text }) {
  run?.free();
  run = next;
  runText = text;
  modelId++;
  running = false;
  sampleRequest++;
  views.reset(attentionText);
  run.setWorkers(workers);
  replicas.setModel(run.details.settings.model);
}

/** What the page needs to show a run from its start. */
function describe() {
  const { uniform_loss: uniformLoss, vocab_size: vocabSize, max_iters: total, step } = run.status;
  const { settings, history, merges, last_sample: lastSample } = run.details;
  return { uniformLoss, vocabSize, total, step, settings, history, merges, lastSample };
}

/** Attaches `text` if the run's vocabulary covers it; returns what is wrong with it otherwise. */
function attach(opened, text) {
  try {
    opened.useText(text);
    return null;
  } catch (e) {
    return { message: e.message, missing: opened.missingChars(text) };
  }
}

/** Opens checkpoint `bytes` on `text`: it samples even when the text does not fit it. */
function open(bytes, text, page, extra) {
  const opened = Run.open(new Uint8Array(bytes));
  const textProblem = attach(opened, text);
  adopt(opened, { attentionText: page.attentionText ?? '', text: textProblem ? '' : text });
  post({ type: 'loaded', ...describe(), textProblem, ...extra });
  views.live(run);
  views.insideViews(run);
}

/** Reopens saved run `id` with its text and the page's fields as they were, unless `stale()` by then. */
async function reopen(id, restored, stale = () => false) {
  const { record, bytes, text } = await loadRun(id);
  if (stale()) return;
  open(bytes, text, record.page ?? {}, { restored: { name: record.name, corpusId: record.corpusId, page: record.page, text, restored } });
  autosave.start(record);
}

const handlers = {
  create({ settings, text, budget, attentionText, name, corpus, corpusId }) {
    adopt(new Run(settings, text, budget), { attentionText, text });
    autosave.start({ name, corpus, corpusId });
    post({ type: 'created', ...describe() });
    views.live(run);
    views.insideViews(run);
  },
  load({ bytes, text, attentionText, name }) {
    open(bytes, text, { attentionText }, {});
    autosave.start({ name, corpus: 'a checkpoint file', corpusId: 'own' });
    saveNow();
  },
  // The last run comes back only if the person has not started or opened one meanwhile.
  async restore() {
    const id = modelId;
    const stale = () => id !== modelId;
    const [latest] = await listRuns().catch(() => []);
    if (stale()) return;
    if (latest) await reopen(latest.id, true, stale);
    else post({ type: 'nothing-saved' });
  },
  'open-saved'({ id }) {
    return reopen(id, false);
  },
  save() {
    if (!run) return;
    const bytes = run.save();
    post({ type: 'saved', bytes: bytes.buffer, step: run.status.step, name: autosave.current?.name }, [bytes.buffer]);
  },
  async download({ id }) {
    const { record, bytes } = await loadRun(id);
    post({ type: 'saved', bytes, step: record.step, name: record.name }, [bytes.buffer ?? bytes]);
  },
  async rename({ id, name }) {
    await updateRun(id, { name });
    if (autosave.current?.id === id) autosave.current.name = name;
    post({ type: 'runs-changed' });
  },
  async delete({ id }) {
    await deleteRun(id);
    if (autosave.current?.id === id) autosave.forget();
    post({ type: 'runs-changed' });
  },
  train({ settings, budget }) {
    if (!run || running) return;
    if (settings) run.updateSettings(settings, budget);
    return train();
  },
  workers({ count }) {
    workers = count;
    if (sharing === 0) applyWorkers();
  },
  pause() {
    running = false;
  },
  reset() {
    running = false;
    sampleRequest++;
    modelId++;
    run?.free();
    run = null;
    autosave.forget();
  },
  'use-text'({ text }) {
    if (!run || running) return;
    const problem = attach(run, text);
    if (problem) return post({ type: 'text-problem', ...problem });
    if (text !== runText) autosave.textChanged();
    runText = text;
    post({ type: 'text-ok' });
  },
  'fit-text'({ text }) {
    if (run) post({ type: 'text-fitted', text: run.keepKnown(text) });
  },
  sample({ options }) {
    if (run) return sample(options);
  },
  attention({ text }) {
    views.attentionText = text;
    views.attention(run);
  },
  next({ prompt, temperature }) {
    views.nextQuery = { prompt, temperature };
    views.nextTokens(run);
  },
  inside({ open: show, probe }) {
    views.inside = { open: show, probe };
    if (!running) views.insideViews(run); // while training, evaluations bring the views
  },
};

// Loaded after onmessage is set, so no message from the page can arrive before there is a listener.
const engine = import('./wasm.js');
let Run = null;
let memoryBytes = null;

self.onmessage = async ({ data }) => {
  try {
    if (!Run) ({ Run, memoryBytes } = await engine);
    await handlers[data.type]?.(data);
  } catch (e) {
    if (data.type === 'sample') post({ type: 'sample-done' });
    report(data.type, e);
  }
};

const { loadError } = await engine;
post(loadError ? { type: 'crashed', message: loadError } : { type: 'ready' });
