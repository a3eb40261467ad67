// Counts a text away from the page, a few megabytes at a time with progress, so a 100 MB text
// neither holds up the page nor grows the page's own wasm memory (which never shrinks).

/** UTF-16 code units per piece: about 4 MB of text crosses into wasm at a time. */
const PIECE = 4 * 2 ** 20;

const isHighSurrogate = (unit) => unit >= 0xd800 && unit <= 0xdbff;

// Loaded after onmessage is set, so no message from the page can arrive before there is a listener.
const engine = import('./wasm.js');

onmessage = async ({ data: { id, text } }) => {
  let counter;
  try {
    counter = new (await engine).TextCounter();
    for (let at = 0; at < text.length;) {
      let end = Math.min(at + PIECE, text.length);
      if (isHighSurrogate(text.charCodeAt(end - 1))) end++; // a piece never splits a character
      counter.add(text.slice(at, end));
      at = end;
      postMessage({ id, done: at / text.length });
    }
    postMessage({ id, stats: counter.stats() });
  } catch (e) {
    postMessage({ id, error: e.message || String(e) });
  } finally {
    counter?.free();
  }
};
