// The training worker: owns the wasm Trainer so the page's thread never blocks on the model.
// Messages in:  create {config, text, attentionText}, load {bytes, text, attentionText}, train {maxIters},
//               pause, reset, save, sample {options}, attention {text}, next {prompt, temperature}.
// Messages out: ready, created, loaded, saved {bytes, step}, progress, eval, attention, next-tokens,
//               sample-chunk, sample-done, paused, finished, error {context, message}, crashed {message}.
import init, { Trainer, version } from '../pkg/gpt_playground.js';

/** Milliseconds of work per step() call: long enough to amortise, short enough to pause quickly. */
const CHUNK_MS = 80;
/** How often the attention maps and next-token list are recomputed while training. */
const VIEWS_EVERY_MS = 400;
/** Batches per split in each evaluation. */
const EVAL_ITERS = 8;
/** How many of the most likely next tokens the page lists. */
const NEXT_TOKENS = 8;

let trainer = null;
let config = null;
let running = false;
let attentionText = '';
let nextQuery = null; // the prompt and temperature whose next-token distribution the page shows
let sampling = 0; // counts sample requests: a new one cancels the old
let generation = 0; // counts models: a loop from an older model stops quietly

const post = (message, transfer = []) => self.postMessage(message, transfer);
const yieldToMessages = () => new Promise((resolve) => setTimeout(resolve, 0));

function report(context, error) {
  // A trap means a panic escaped: the instance is gone, so nothing more can run.
  if (error instanceof WebAssembly.RuntimeError) {
    running = false;
    trainer = null;
    generation++;
    post({ type: 'crashed', message: `${error.message}. See the console for details.` });
  } else {
    post({ type: 'error', context, message: error?.message ?? String(error) });
  }
}

function sendAttention() {
  if (!trainer || !attentionText) return;
  try {
    const maps = trainer.attention(attentionText);
    post({ type: 'attention', maps }, [maps.weights.buffer]);
  } catch (e) {
    report('attention', e);
  }
}

function sendNextTokens() {
  if (!trainer || !nextQuery) return;
  try {
    post({ type: 'next-tokens', tokens: trainer.nextTokens(nextQuery.prompt, nextQuery.temperature, NEXT_TOKENS) });
  } catch (e) {
    report('next', e);
  }
}

/** Everything the page draws from the current weights. */
function sendViews() {
  sendAttention();
  sendNextTokens();
}

function evaluate() {
  const evaluation = trainer.evaluate(EVAL_ITERS);
  post({ type: 'eval', evaluation });
}

async function train() {
  const total = config.train.max_iters;
  const evalEvery = Math.max(10, Math.round(total / 20));
  let perStepMs = 50;
  let lastViews = 0;
  const model = generation;
  running = true;
  if (trainer.stepCount === 0) evaluate();
  while (running && model === generation && trainer.stepCount < total) {
    const untilEval = evalEvery - (trainer.stepCount % evalEvery);
    const n = Math.max(1, Math.min(untilEval, total - trainer.stepCount, Math.round(CHUNK_MS / perStepMs)));
    const started = performance.now();
    try {
      const stats = trainer.step(n);
      perStepMs = Math.max(0.5, (performance.now() - started) / n);
      post({ type: 'progress', stats, total });
      if (stats.step % evalEvery === 0 || stats.step === total) evaluate();
    } catch (e) {
      running = false;
      report('training', e);
      break;
    }
    if (performance.now() - lastViews > VIEWS_EVERY_MS) {
      sendViews();
      lastViews = performance.now();
    }
    await yieldToMessages();
  }
  if (model !== generation) return;
  if (trainer.stepCount >= total) {
    running = false;
    sendViews();
    post({ type: 'finished' });
  } else {
    post({ type: 'paused' });
  }
}

async function sample(options) {
  const id = ++sampling;
  trainer.startSample(options);
  for (;;) {
    if (id !== sampling || !trainer) return;
    const chunk = trainer.sampleNext(4);
    if (chunk === undefined) break;
    post({ type: 'sample-chunk', text: chunk });
    await yieldToMessages();
  }
  post({ type: 'sample-done' });
}

/** Swaps in a newly built model; the caller builds it first, so a rejected one leaves the old. */
function adopt(next, a) {
  trainer?.free();
  trainer = next;
  generation++;
  running = false;
  sampling++;
  config = trainer.settings;
  attentionText = a;
}

const handlers = {
  create({ config: c, text, attentionText: a }) {
    adopt(new Trainer(c, text), a);
    post({ type: 'created', paramCount: trainer.paramCount, vocabSize: trainer.vocabSize, merges: trainer.merges });
    sendViews();
  },
  load({ bytes, text, attentionText: a }) {
    adopt(Trainer.load(new Uint8Array(bytes), text), a);
    post({
      type: 'loaded', settings: config, history: trainer.history, vocabSize: trainer.vocabSize,
      step: trainer.stepCount, merges: trainer.merges, sampling: trainer.sampling,
    });
    sendViews();
  },
  save() {
    if (!trainer) return;
    const bytes = trainer.save();
    post({ type: 'saved', bytes: bytes.buffer, step: trainer.stepCount }, [bytes.buffer]);
  },
  train({ maxIters }) {
    if (!trainer || running) return;
    if (maxIters !== undefined && maxIters !== config.train.max_iters) {
      trainer.setMaxIters(maxIters);
      config = trainer.settings;
    }
    return train();
  },
  pause() {
    running = false;
  },
  reset() {
    running = false;
    sampling++;
    generation++;
    trainer?.free();
    trainer = null;
  },
  sample({ options }) {
    if (trainer) return sample(options);
  },
  attention({ text }) {
    attentionText = text;
    sendAttention();
  },
  next({ prompt, temperature }) {
    nextQuery = { prompt, temperature };
    sendNextTokens();
  },
};

self.onmessage = async ({ data }) => {
  try {
    await handlers[data.type]?.(data);
  } catch (e) {
    if (data.type === 'sample') post({ type: 'sample-done' });
    report(data.type, e);
  }
};

try {
  await init();
  post({ type: 'ready', version: version() });
} catch (e) {
  post({ type: 'crashed', message: `the model engine failed to load: ${e.message}` });
}
