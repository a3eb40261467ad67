// Number formatting for the page.

// One formatter: toLocaleString builds one per call, which showed in the page's profile.
const COUNT = new Intl.NumberFormat('en-US');
export const count = (n) => COUNT.format(n);

export function bytes(n) {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(0)} MiB`;
  return `${Math.max(1, Math.round(n / 2 ** 10))} KiB`;
}

export function duration(seconds) {
  if (!Number.isFinite(seconds)) return '–';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m} min ${Math.round(seconds % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

const VISIBLE = { '\n': '↵', ' ': '␣', '\t': '⇥', '\r': '␍' };

/** A token as a visible label: whitespace gets a printable stand-in. */
export function tokenLabel(token) {
  return [...token].map((c) => VISIBLE[c] ?? c).join('');
}
