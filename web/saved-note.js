// What the autoencoder's and the transcoders' panels both say once their training ends: that the
// run's next save kept it.
import { on } from './engine.js';

/** Adds " Saved with the run." to `status` at the first autosave after each `arm()`. */
export function savedNote(status) {
  let armed = false;
  on('autosaved', () => {
    if (armed) status.textContent += ' Saved with the run.';
    armed = false;
  });
  return { arm: () => { armed = true; } };
}
