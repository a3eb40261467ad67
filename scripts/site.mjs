// Assembles the playground as a self-contained static site: the page (web/), both engine builds
// (pkg/, pkg-relaxed/: their JavaScript and wasm only) and the bundled corpora (assets/), with an
// index.html that opens the page. Every URL inside is relative, so the folder works from any
// path of any static host (GitHub Pages serves it under /REPO/).
// Usage: node scripts/site.mjs [out]   (default target/site; after scripts/build.sh)
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const ENGINE_FILES = ['gpt_playground.js', 'gpt_playground_bg.wasm'];

/** Writes the site into `out` (emptied first); throws when an engine build is missing. */
export function assembleSite(out = join(ROOT, 'target/site')) {
  for (const dir of ['pkg', 'pkg-relaxed']) {
    for (const file of ENGINE_FILES) {
      if (!existsSync(join(ROOT, dir, file))) throw new Error(`${dir}/${file} is missing: run scripts/build.sh first`);
    }
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  cpSync(join(ROOT, 'web'), join(out, 'web'), { recursive: true });
  cpSync(join(ROOT, 'assets'), join(out, 'assets'), { recursive: true });
  for (const dir of ['pkg', 'pkg-relaxed']) {
    mkdirSync(join(out, dir));
    for (const file of ENGINE_FILES) cpSync(join(ROOT, dir, file), join(out, dir, file));
  }
  writeFileSync(join(out, 'index.html'), '<!doctype html>\n<meta charset="utf-8">\n<title>gpt-playground</title>\n'
    + '<meta http-equiv="refresh" content="0; url=web/">\n<a href="web/">Open the playground</a>\n');
  writeFileSync(join(out, '.nojekyll'), ''); // GitHub Pages: serve the files as they are
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(`the site is in ${assembleSite(process.argv[2] && resolve(process.argv[2]))}`);
  } catch (e) {
    console.error(`error: ${e.message}`);
    process.exit(1);
  }
}
