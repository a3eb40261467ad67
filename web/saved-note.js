// What the autoencoder's and the transcoders' panels both say once their training ends: that the
// run's next save kept it.
import { t } from './i18n.js';
import { on } from './engine.js';

/** Adds that it was saved with the run to `status` at the first autosave after each `arm()`. */
export function savedNote(status) {
  let armed = false;
  on('autosaved', () => {
    if (armed) status.textContent += ` ${t('note.saved-with-run')}`;
    armed = false;
  });
  return { arm: () => { armed = true; } };
}
