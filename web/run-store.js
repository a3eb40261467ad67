// Saved runs in IndexedDB: a small record per run to list (`runs`), its checkpoint file
// (`checkpoints`) and the text it trains on (`texts`). The training worker writes; the page
// reads the list. Every call rejects with a message a person can act on.
import { t } from './i18n.js';

const DB = 'gpt-playground';
const STORES = ['runs', 'checkpoints', 'texts'];

/** A storage that has not answered by then is taken for stuck: saving stops, training goes on. */
const OPEN_TIMEOUT_MS = 10000;

let opening = null;

/** Why storage failed, in words: a full quota, storage refused (private windows), or else. */
export function storageProblem(error) {
  const name = error?.name ?? '';
  if (name === 'QuotaExceededError') return t('store.full');
  if (name === 'SecurityError' || name === 'InvalidStateError' || name === 'UnknownError') return t('store.refused');
  return error?.message ?? String(error);
}

function open() {
  opening ??= new Promise((resolve, reject) => {
    let request;
    try {
      request = indexedDB.open(DB, 1);
    } catch (e) {
      reject(e);
      return;
    }
    request.onupgradeneeded = () => {
      const db = request.result;
      for (const name of STORES) if (!db.objectStoreNames.contains(name)) db.createObjectStore(name, { keyPath: name === 'runs' ? 'id' : undefined });
    };
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new Error(t('store.silent', { seconds: OPEN_TIMEOUT_MS / 1000 })));
    }, OPEN_TIMEOUT_MS);
    request.onsuccess = () => {
      clearTimeout(timer);
      if (late) request.result.close(); // given up on: a later call opens afresh
      else resolve(request.result);
    };
    request.onerror = () => {
      clearTimeout(timer);
      reject(request.error);
    };
    request.onblocked = () => reject(new Error(t('store.blocked')));
  });
  opening.catch(() => { opening = null; });
  return opening;
}

/** Runs `work(stores)` in one transaction over `names`; resolves with its result once committed. */
async function transact(names, mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(names, mode);
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error(t('store.cancelled')));
    const stores = Object.fromEntries(names.map((n) => [n, tx.objectStore(n)]));
    const requested = work(stores);
    if (requested) requested.onsuccess = () => { result = requested.result; };
  });
}

/** Every saved run's record, newest first. */
export async function listRuns() {
  const runs = await transact(['runs'], 'readonly', (s) => s.runs.getAll());
  return runs.sort((a, b) => b.savedAt - a.savedAt);
}

/**
 * Saves a run: its record, its checkpoint `bytes`, and `text` when given (it changes seldom).
 * All three land together or not at all.
 */
export function saveRun(record, bytes, text) {
  return transact(['runs', 'checkpoints', 'texts'], 'readwrite', (s) => {
    s.runs.put(record);
    s.checkpoints.put(bytes, record.id);
    if (text !== undefined) s.texts.put(text, record.id);
  });
}

/** A run's record, checkpoint bytes and text. */
export async function loadRun(id) {
  const [record, bytes, text] = await Promise.all([
    transact(['runs'], 'readonly', (s) => s.runs.get(id)),
    transact(['checkpoints'], 'readonly', (s) => s.checkpoints.get(id)),
    transact(['texts'], 'readonly', (s) => s.texts.get(id)),
  ]);
  if (!record || !bytes) throw new Error(t('store.gone'));
  return { record, bytes, text: text ?? '' };
}

/** Changes a run's record (its name). */
export async function updateRun(id, change) {
  const record = await transact(['runs'], 'readonly', (s) => s.runs.get(id));
  if (!record) throw new Error(t('store.gone'));
  await transact(['runs'], 'readwrite', (s) => s.runs.put({ ...record, ...change }));
}

export function deleteRun(id) {
  return transact(['runs', 'checkpoints', 'texts'], 'readwrite', (s) => STORES.forEach((n) => s[n].delete(id)));
}
