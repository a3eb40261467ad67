// The model engine: the build with relaxed SIMD (fused multiply-add) where this browser has it,
// else the SIMD128 one. Both come from scripts/build.sh; the page, the worker and the replicas
// all load the engine through this module.

/** A module whose one function uses f32x4.relaxed_madd: valid only where relaxed SIMD is. */
const RELAXED_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 61, 1, 59, 0,
  253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  253, 133, 2, 11,
]);

/** Loads one build; a build missing from the server (built by hand with wasm-pack alone) is null. */
async function load(dir) {
  try {
    return await import(`../${dir}/gpt_playground.js`);
  } catch {
    return null;
  }
}

const relaxed = WebAssembly.validate(RELAXED_PROBE) ? await load('pkg-relaxed') : null;
const engine = relaxed ?? await load('pkg');
/** Why the engine could not start, or null: the importer says so, as nothing else can run. */
export let loadError = engine ? null : 'the model engine is not built: run scripts/build.sh';
let exports = null;
try {
  exports = await engine?.default();
} catch (e) {
  loadError = `the model engine failed to load: ${e.message}`;
}

/** Bytes of this engine's wasm memory: it only grows, so it shows what a long run holds. */
export const memoryBytes = () => exports?.memory.buffer.byteLength ?? 0;

/** Which build runs, for the page to say. */
export const simd = relaxed ? 'SIMD128 + relaxed FMA' : 'SIMD128';
export const { Run, Replica, presets, compareSettings, describeModel, describeTask, orthogonalize, summarizeText, tasks, version } = engine ?? {};
