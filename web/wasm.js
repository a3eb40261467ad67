// The model engine: the build with relaxed SIMD (fused multiply-add) where this browser has it
// and starts it, else the SIMD128 one. Both come from scripts/build.sh; the page, the worker and
// the helpers all load the engine through this module. Its words are asked for once a catalog is loaded.
import { t } from './i18n.js';

/** A module whose one function uses f32x4.relaxed_madd: valid only where relaxed SIMD is. */
const RELAXED_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 61, 1, 59, 0,
  253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  253, 133, 2, 11,
]);

/** Loads and starts one build: `{ module, exports }`, or `{ missing }` when the server has none
 * (built by hand with wasm-pack alone), or `{ error }` when the browser refuses it. */
async function start(dir) {
  let module;
  try {
    module = await import(`../${dir}/gpt_playground.js`);
  } catch {
    return { missing: true };
  }
  try {
    return { module, exports: await module.default() };
  } catch (e) {
    return { error: e.message || String(e) };
  }
}

// The relaxed build only where the probe passes and the module itself compiles and starts: a
// browser can accept the probe and still refuse other relaxed instructions (WebKit did).
let relaxed = null;
let why = () => t('engine.no-relaxed');
if (WebAssembly.validate(RELAXED_PROBE)) {
  relaxed = await start('pkg-relaxed');
  if (relaxed.missing) why = () => t('engine.relaxed-missing');
  else if (relaxed.error) why = () => t('engine.relaxed-refused', { reason: relaxed.error });
}
const chosen = relaxed?.exports ? relaxed : await start('pkg');
const engine = chosen.module ?? null;
const exports = chosen.exports ?? null;
/** Why the engine could not start, or null: the importer says so, as nothing else can run. */
export const loadError = () => (chosen.missing ? t('engine.not-built')
  : chosen.error ? t('engine.failed', { reason: chosen.error }) : null);

/** Bytes of this engine's wasm memory: it only grows, so it shows what a long run holds. */
export const memoryBytes = () => exports?.memory.buffer.byteLength ?? 0;

/** Which build runs and, for the plain one, why: for the page to say. */
export const simd = () => (chosen === relaxed ? 'SIMD128 + relaxed FMA' : `SIMD128 (${why()})`);
export const { Run, Replica, catalog, compareSettings, describeModel, importRun, TextCounter, Toy, phaseCell } = engine ?? {};
