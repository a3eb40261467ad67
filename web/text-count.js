// The page's side of count-worker.js: counts a text there, one count at a time, the latest wins.
import { t } from './i18n.js';
let worker = null;
let latest = 0;

/**
 * Counts `text` in the counting worker: resolves to `{ chars, vocab_size }`, or to null when a
 * later count has replaced this one. `onProgress(fraction)` hears how far it has come.
 */
export function countText(text, onProgress) {
  worker ??= new Worker(new URL('./count-worker.js', import.meta.url), { type: 'module' });
  const current = worker;
  const id = ++latest;
  return new Promise((resolve, reject) => {
    const end = () => {
      current.removeEventListener('message', hear);
      current.removeEventListener('error', fail);
    };
    const hear = ({ data }) => {
      if (data.id !== id) return;
      if (data.done !== undefined) {
        if (latest === id) onProgress(data.done);
        return;
      }
      end();
      if (data.error) reject(new Error(data.error));
      else resolve(latest === id ? data.stats : null);
    };
    // A worker that dies (out of memory, say) is replaced at the next count.
    const fail = (e) => {
      e.preventDefault();
      end();
      if (worker === current) worker = null;
      reject(new Error(e.message || t('count.stopped')));
    };
    current.addEventListener('message', hear);
    current.addEventListener('error', fail);
    current.postMessage({ id, text });
  });
}
