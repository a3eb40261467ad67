// The header's language menu: the page's languages, each named in itself. A choice is kept for the
// next visits and written into the address (a copied link carries it); the page then reloads in it.
// A run in training is paused first, so that the reload brings it back as it was.
import { LANGUAGES, keepLanguage, languageInUse } from './i18n.js';
import { on } from './engine.js';
import { state } from './phase.js';
import { setLinkLanguage } from './share-link.js';

/** How long a pausing run has to be saved before the page reloads anyway (ms). */
const SAVE_WAIT_MS = 5000;

/** Resolves once the run in training is paused and saved (or after SAVE_WAIT_MS). */
function pauseAndSave() {
  return new Promise((resolve) => {
    setTimeout(resolve, SAVE_WAIT_MS);
    on('autosaved', resolve);
    document.getElementById('pause').click();
  });
}

/** Switches the page to `code`: kept, carried by the address, and the page reloaded in it. */
export async function switchLanguage(code) {
  keepLanguage(code);
  setLinkLanguage(code);
  if (state.phase === 'training') await pauseAndSave();
  location.reload();
}

export function initLanguageMenu() {
  const menu = document.getElementById('language');
  menu.replaceChildren(...LANGUAGES.map(({ code, name }) => Object.assign(new Option(name, code), { lang: code })));
  menu.value = languageInUse();
  menu.closest('.language').hidden = LANGUAGES.length < 2;
  menu.addEventListener('change', () => switchLanguage(menu.value));
}
