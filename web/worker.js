// The training worker: holds the wasm Run so the page's thread never blocks on the model, trains
// it (trainer.js, with helpers computing a share of every step when there are several workers),
// answers the page's requests of it, and keeps the run saved (autosave.js).
// Messages in:  create {settings, text, budget, attentionText, name, corpus, corpusId},
//               load {files: [{name, bytes}], text, attentionText, name}, restore, open-saved {id}, train {settings?, budget?},
//               workers {count (a number, or 'auto'), most}, pause, reset, save, export, download {id}, rename {id, name}, delete {id},
//               use-text {text}, fit-text {text}, sample {options}, solve {problem}, attention {text},
//               next {prompt, temperature}, inside {views, probe, questions}, walk {request (null: closed)},
//               features {request, train?}, transcoders {request, train?}, features-pause (either's training).
// Messages out: ready, created, loaded {..., restored?, imported?, textProblem?}, saved {bytes, step, name}, exported {bytes, name, leftOut},
//               progress {report, memory (wasm bytes, all workers)}, eval {evaluation}, attention {maps}, next-tokens {next},
//               inside {inside, timelapse?}, walk {walk}, features {answer, asked, memory}, features-paused {answer},
//               transcoders {answer, asked, memory}, transcoders-paused {answer}, sample-chunk {text}, sample-done, solutions {solutions},
//               solved {solution}, paused, finished,
//               autosaved {record}, storage {message}, text-ok, text-problem {missing, message},
//               text-fitted {text}, runs-changed, nothing-saved,
//               error {context, message, field?, code?} (context: the message type that failed; code: the engine's message; field: the
//               setting at fault, if one is), crashed {message}.
import { errorText, t, useWorkerLanguage } from './i18n.js';
import { AskedWork } from './asked-work.js';
import { Autosave } from './autosave.js';
import { deleteRun, listRuns, loadRun, updateRun } from './run-store.js';
import { Trainer } from './trainer.js';
import { Dictionaries } from './worker-dictionaries.js';
import { Views } from './worker-views.js';
import { yieldToMessages } from './yield.js';

let runText = ''; // the text the run trains on ('' when none fits it)
let sampleRequest = 0; // counts sample requests: a new one (or a new model) cancels the old
let modelStarting = false; // Train or Resume arrived, and waits for the autoencoder's training to pause
let insideAsked = false; // an ask of the views inside waits for the asks queued behind it
const post = (message, transfer = []) => self.postMessage(message, transfer);
const views = new Views(post, report, () => trainer.running);
const autosave = new Autosave(post);
const saveNow = () => autosave.save(() => ({ run: trainer.run, text: runText, page: views.fields() }));
const trainer = new Trainer({ post, views, save: saveNow, report, memoryBytes: () => memoryBytes(), shareAsked: () => asked.share(views.inside) });
const asked = new AskedWork(trainer, { save: saveNow, show: () => views.insideViews(trainer.run) });
const dictionaries = new Dictionaries({ trainer, post, save: saveNow, report });

function report(context, error) {
  // A trap means a panic escaped: the instance is gone, so nothing more can run.
  if (error instanceof WebAssembly.RuntimeError) {
    trainer.drop(true);
    post({ type: 'crashed', message: t('worker.crashed', { reason: error.message }) });
  } else {
    post({ type: 'error', context, message: errorText(error), field: error?.field, code: error?.words?.code });
  }
}

async function sample(options) {
  const request = ++sampleRequest;
  const { run } = trainer;
  for (let first = true; ; first = false) {
    if (request !== sampleRequest || run !== trainer.run) return;
    const chunk = run.sample(4, first ? options : undefined);
    if (chunk === undefined) break;
    post({ type: 'sample-chunk', text: chunk });
    await yieldToMessages();
  }
  post({ type: 'sample-done' });
}

/** Answers a request of dictionary `of`, and with `train` trains it on. */
async function dictionary(of, request, train) {
  const { run } = trainer;
  if (!run) return;
  if (trainer.running || modelStarting) throw new Error(t(of === 'autoencoder' ? 'worker.pause-first-autoencoder' : 'worker.pause-first-transcoders'));
  if (train) await asked.stop(); // its steps and an ask's job would take turns on the run
  await dictionaries.ask(of, request, train);
}

/** Swaps in a newly built run; the caller builds it first, so a rejected one leaves the old. */
function adopt(next, { attentionText, text }) {
  trainer.adopt(next);
  runText = text;
  sampleRequest++;
  views.reset(attentionText);
}

/** What the page needs to show a run from its start. */
function describe() {
  const { run } = trainer;
  const { uniform_loss: uniformLoss, vocab_size: vocabSize, max_iters: total, step, milestones } = run.status;
  const { settings, history, merges, last_sample: lastSample, task } = run.details;
  return { uniformLoss, vocabSize, total, step, settings, history, merges, lastSample, task, milestones };
}

/** Attaches `text` if the run's vocabulary covers it; returns what is wrong with it otherwise. */
function attach(opened, text) {
  try {
    const { missing } = opened.useText(text);
    return missing.length === 0 ? null : { message: t('worker.vocabulary-lacks'), missing };
  } catch (e) {
    return { message: errorText(e), missing: [] };
  }
}

/** Opens checkpoint `bytes` on `text` (a task's run makes its own problems): it samples even when the text does not fit it. */
function open(bytes, text, page, extra) {
  const opened = Run.open(new Uint8Array(bytes));
  const textProblem = opened.status.task ? null : attach(opened, text);
  adopt(opened, { attentionText: page.attentionText ?? '', text: textProblem || opened.status.task ? '' : text });
  post({ type: 'loaded', ...describe(), textProblem, ...extra });
  views.live(opened);
  views.deep(opened);
  dictionaries.restore(opened);
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
    views.live(trainer.run);
    views.deep(trainer.run);
  },
  // Our checkpoint, or another tool's files (nanoGPT's, Transformers', an export's zip), which may
  // bring the run's own text.
  load({ files, text, attentionText, name }) {
    const imported = importRun(files.map((f) => f.name), files.map((f) => new Uint8Array(f.bytes)));
    const { checkpoint, from } = imported;
    const ownText = imported.text;
    imported.free();
    open(checkpoint, ownText ?? text, { attentionText }, { imported: { from, text: ownText } });
    autosave.start({ name, corpus: from === 'gpt-playground' ? t('worker.from-checkpoint') : t('worker.from-files', { tool: from }), corpusId: 'own' });
    saveNow();
  },
  // The last run comes back only if the person has not started or opened one meanwhile.
  async restore() {
    const id = trainer.modelId;
    const stale = () => id !== trainer.modelId;
    const [latest] = await listRuns().catch(() => []);
    if (stale()) return;
    if (latest) await reopen(latest.id, true, stale);
    else post({ type: 'nothing-saved' });
  },
  'open-saved'({ id }) {
    return reopen(id, false);
  },
  save() {
    const { run } = trainer;
    if (!run) return;
    const bytes = run.save();
    post({ type: 'saved', bytes: bytes.buffer, step: run.status.step, name: autosave.current?.name }, [bytes.buffer]);
  },
  export() {
    const { run } = trainer;
    if (!run) return;
    const name = autosave.current?.name ?? 'gpt_playground';
    const bytes = run.export(name);
    post({ type: 'exported', bytes: bytes.buffer, name, leftOut: run.leftOut }, [bytes.buffer]);
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
  async train({ settings, budget }) {
    if (!trainer.run || trainer.running || modelStarting) return;
    // The model's steps and the autoencoder's share the helpers: the autoencoder's pause first.
    // Until the model's training starts, a request to train features is refused as during it.
    modelStarting = true;
    try {
      await dictionaries.stop();
      await asked.stop();
      if (settings) trainer.run.updateSettings(settings, budget);
    } finally {
      modelStarting = false;
    }
    return trainer.train();
  },
  workers({ count, most }) {
    trainer.chooseWorkers({ count, most });
  },
  pause() {
    trainer.pause();
  },
  reset() {
    sampleRequest++;
    trainer.drop();
    autosave.forget();
  },
  'use-text'({ text }) {
    if (!trainer.run || trainer.running || trainer.run.status.task) return;
    const problem = attach(trainer.run, text);
    if (problem) return post({ type: 'text-problem', ...problem });
    if (text !== runText) autosave.textChanged();
    runText = text;
    post({ type: 'text-ok' });
  },
  'fit-text'({ text }) {
    if (trainer.run) post({ type: 'text-fitted', text: trainer.run.useText(text).kept });
  },
  sample({ options }) {
    if (trainer.run) return sample(options);
  },
  solve({ problem }) {
    if (trainer.run) post({ type: 'solved', solution: trainer.run.ask({ ask: 'solve', typed: problem }).solution });
  },
  attention({ text }) {
    views.attentionText = text;
    views.attention(trainer.run);
  },
  next({ prompt, temperature }) {
    views.nextQuery = { prompt, temperature };
    views.nextTokens(trainer.run);
  },
  walk({ request }) {
    views.walkRequest = request;
    views.walk(trainer.run); // at once, while training too: one sequence's pass costs little
  },
  features({ request, train }) {
    return dictionary('autoencoder', request, train);
  },
  transcoders({ request, train }) {
    return dictionary('transcoders', request, train);
  },
  'features-pause'() {
    dictionaries.pause();
  },
  async inside({ views: shown, probe, questions }) {
    views.inside = { views: shown, probe, questions };
    views.lapseSent = -1; // a time-lapse opened again needs its snapshots
    // While training, evaluations bring the views. A burst of asks (views closed one by one, then a
    // head knocked out) is answered once, with the last, not each in turn behind the others.
    // Train waiting to start runs what they ask once it stops, as while it trains.
    if (trainer.running || modelStarting || insideAsked) return;
    insideAsked = true;
    await yieldToMessages();
    insideAsked = false;
    if (trainer.running || modelStarting) return;
    // An ask given up (to Train, or to a later ask) leaves the views to what replaced it.
    if (await asked.share(views.inside) && !trainer.running && !modelStarting) views.insideViews(trainer.run);
  },
};

// Loaded after onmessage is set, so no message from the page can arrive before there is a listener.
const engine = import('./wasm.js');
const language = useWorkerLanguage();
let Run = null;
let importRun = null;
let memoryBytes = null;

self.onmessage = async ({ data }) => {
  try {
    await language;
    if (!Run) ({ Run, importRun, memoryBytes } = await engine);
    await handlers[data.type]?.(data);
  } catch (e) {
    if (data.type === 'sample') post({ type: 'sample-done' });
    report(data.type, e);
  }
};

await language;
const { loadError } = await engine;
post(loadError() ? { type: 'crashed', message: loadError() } : { type: 'ready' });
