// The setup in the address: the preset, every field of the model form, a bundled corpus and the
// page's language live in the URL's hash, so a link opens the page set up the same way. A user's
// own text never goes in the URL, nor does the page-only Workers field.
import { languageInUse, t } from './i18n.js';

const $ = (id) => document.getElementById(id);
/** The hash this tab wrote last: after a reload it is this tab's own setup, not a shared link. */
const OWN = 'gpt-playground-own-hash';

/** The form's fields that make up a setup: named, and the run's (not data-local). */
const fields = (form) => [...form.elements].filter((el) => el.name && !('local' in el.dataset));

/** Writes the current setup into the address, without a new history entry. */
export function writeSetup(form) {
  const params = new URLSearchParams();
  params.set('preset', $('preset').value);
  const corpus = $('corpus').value;
  if (corpus !== 'own') params.set('corpus', corpus);
  for (const el of fields(form).filter((f) => !f.disabled)) { // a text's link has no task settings
    params.set(el.name, el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value);
  }
  params.set('lang', languageInUse());
  history.replaceState(null, '', `#${params}`);
  sessionStorage.setItem(OWN, location.hash);
}

/** Sets the language the address carries, keeping it this tab's own if it was (a reload then restores the run). */
export function setLinkLanguage(code) {
  const params = new URLSearchParams(location.hash.slice(1));
  const own = location.hash === sessionStorage.getItem(OWN);
  params.set('lang', code);
  history.replaceState(null, '', `#${params}`);
  if (own) sessionStorage.setItem(OWN, location.hash);
}

/**
 * The setup of a link opened here, or null when the address has none or it is this tab's own
 * (a reload, which brings the last run back instead): {preset, corpus, values by field name}.
 */
export function readSetup() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has('preset') || location.hash === sessionStorage.getItem(OWN)) return null;
  const values = Object.fromEntries([...params].filter(([k]) => !['preset', 'corpus', 'lang'].includes(k)));
  return { preset: params.get('preset'), corpus: params.get('corpus'), values };
}

/** Sets the form's fields from a setup's values (after its preset filled the rest). */
export function applyValues(form, values) {
  for (const el of fields(form)) {
    if (!(el.name in values)) continue;
    if (el.type === 'checkbox') el.checked = values[el.name] === '1';
    else el.value = values[el.name];
  }
}

/** The Copy link button: the address to the clipboard, or shown to copy by hand. */
export function initShareLink() {
  $('copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $('link-status').textContent = t('link.copied');
    } catch {
      $('link-status').textContent = t('link.copy-by-hand', { address: location.href });
    }
  });
}
