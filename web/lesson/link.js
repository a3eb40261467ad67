// A lesson carried whole in a link: its text compressed (deflate) into the address's hash, so a
// teacher shares a lesson with no server. The page reads a link's lesson as it reads a file: as
// untrusted text, up to a size.
import { count, t } from '../i18n.js';
import { MAX_LESSON } from './parse.js';

/** The hash key a lesson travels under. */
const KEY = 'lesson';
/** The longest hash the page reads a lesson from (characters). */
const MAX_LINK = 16_000;

const toBase64Url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromBase64Url = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** The address of this page with `text` as its lesson, opening the page in `lang` when given. */
export async function lessonLink(text, base = location.href, lang = null) {
  const packed = toBase64Url(await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw')));
  const url = new URL(base);
  url.hash = `${KEY}=${packed}${lang ? `&lang=${lang}` : ''}`;
  return url.href;
}

/** Whether `hash` carries a lesson (read it with lessonFromHash). */
export const carriesLesson = (hash) => new URLSearchParams(hash.slice(1)).has(KEY);

/** The lesson a hash carries (`#lesson=...`), its text, or `{ error }`; null when it carries none. */
export async function lessonFromHash(hash = location.hash) {
  const params = new URLSearchParams(hash.slice(1));
  const packed = params.get(KEY);
  if (packed === null) return null;
  if (packed.length > MAX_LINK) return { error: t('lesson.link-long', { length: count(packed.length), max: count(MAX_LINK) }) };
  try {
    const bytes = await pipe(fromBase64Url(packed), new DecompressionStream('deflate-raw'));
    if (bytes.length > 4 * MAX_LESSON) return { error: t('lesson.link-too-long') };
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { error: t('lesson.link-unreadable') };
  }
}
