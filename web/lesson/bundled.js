// The lessons the page ships (assets/lessons/, listed in order in index.json; each language's
// translations in assets/lessons/<code>/), each read as any lesson is: by the same parser, with
// no trust beyond a teacher's own file.
import { languageInUse } from '../i18n.js';
import { parseLesson } from './parse.js';

const BASE = new URL('../../assets/lessons/', import.meta.url);
let listed = null;

/** The bundled lessons in order, in the page's language: `{ id, text, lesson }` (parsed), fetched once. */
export function bundledLessons() {
  const folder = languageInUse() === 'en' ? BASE : new URL(`${languageInUse()}/`, BASE);
  listed ??= fetch(new URL('index.json', BASE)).then((r) => r.json()).then((ids) => Promise.all(ids.map(async (id) => {
    const text = await (await fetch(new URL(`${id}.md`, folder))).text();
    return { id, text, lesson: parseLesson(text) };
  })));
  listed.catch(() => { listed = null; }); // a failed fetch is tried again next time
  return listed;
}

/** The bundled lesson `id`, or undefined. */
export const bundledLesson = async (id) => (await bundledLessons()).find((l) => l.id === id);
