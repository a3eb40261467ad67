// Number formatting for the page: counts in the language in use, sizes and durations.
import { decimal, t } from './i18n.js';

export { count } from './i18n.js';

/** Sentences joined as the language joins them: with a space, or none after Chinese and Japanese "。". */
export const sentences = (items) => items.filter(Boolean).join(t('common.sentence-separator'));

/** Clauses joined as the language joins them ("a; b" in English, "a；b" in Chinese). */
export const clauses = (items) => items.join(t('common.clause-separator'));

export function bytes(n) {
  if (n >= 2 ** 30) return `${decimal(n / 2 ** 30, 1)} GiB`;
  if (n >= 2 ** 20) return `${decimal(n / 2 ** 20, 0)} MiB`;
  return `${Math.max(1, Math.round(n / 2 ** 10))} KiB`;
}

export function duration(seconds) {
  if (!Number.isFinite(seconds)) return '–';
  if (seconds < 60) return t('format.seconds', { s: Math.round(seconds) });
  const m = Math.floor(seconds / 60);
  return m < 60 ? t('format.minutes', { m, s: Math.round(seconds % 60) }) : t('format.hours', { h: Math.floor(m / 60), m: m % 60 });
}

const VISIBLE = { '\n': '↵', ' ': '␣', '\t': '⇥', '\r': '␍' };

/** A token as a visible label: whitespace gets a printable stand-in. */
export function tokenLabel(token) {
  return [...token].map((c) => VISIBLE[c] ?? c).join('');
}
