// The worker client: the one module that talks to the training worker (worker.js).
// Panels register handlers per message type (a lesson listens beside them); errors arrive as
// `error:<context>`.
import './language.js'; // first: the worker words in the page's language
import { t, workerUrl } from './i18n.js';

const worker = new Worker(workerUrl('./worker.js', import.meta.url), { type: 'module' });
const handlers = new Map();
/** Messages that arrive before the page is wired, delivered by `start`. */
let waiting = [];

/** Posts `message` to the worker, moving (not copying) the buffers in `transfer`. */
export function send(message, transfer = []) {
  worker.postMessage(message, transfer);
}

/** Calls `handler(data)` for every message of `type` from the worker. */
export function on(type, handler) {
  handlers.set(type, [...(handlers.get(type) ?? []), handler]);
}

function deliver(data) {
  const type = data.type === 'error' ? `error:${data.context}` : data.type;
  handlers.get(type)?.forEach((handler) => handler(data));
}

/** Delivers messages from now on, beginning with those that arrived while the page started. */
export function start() {
  const early = waiting;
  waiting = null;
  early.forEach(deliver);
}

worker.onmessage = ({ data }) => (waiting ? waiting.push(data) : deliver(data));
worker.onerror = (e) => deliver({ type: 'crashed', message: e.message ?? t('engine.failed-start') });
