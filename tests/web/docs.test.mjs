// The README stays a newcomer's page, and every relative link in it and in docs/ resolves: to a
// file or folder of the repository, and for a Markdown page's #anchor, to one of its headings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** A page's text outside code blocks and inline code, where a link is a link. */
const prose = (text) => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** The links of a page: `[text](target)` and `![alt](target)`. */
const links = (text) => [...prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);

/** GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces as hyphens. */
const slug = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/** The anchors a Markdown page offers, one per heading (GitHub numbers repeats: x, x-1, ...). */
function anchors(text) {
  const seen = new Map();
  return new Set(prose(text).split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => {
    const base = slug(l.replace(/^#+ /, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}-${n}` : base;
  }));
}

/** Each relative link of `file` that leads nowhere. */
function broken(file) {
  const out = [];
  for (const link of links(read(file))) {
    if (/^[a-z]+:/i.test(link)) continue; // http(s), mailto: not the repository's
    const [target, anchor] = link.split('#');
    const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURI(target))) : file;
    if (!fs.existsSync(path.join(ROOT, resolved))) out.push(`${file}: ${link} (no ${resolved})`);
    else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) out.push(`${file}: ${link} (no heading #${anchor} in ${resolved})`);
  }
  return out;
}

test('every relative link in the README and in docs/ resolves, anchors included', () => {
  assert.deepEqual(PAGES.flatMap(broken), []);
});

test('a link to a missing page or heading is found', () => {
  assert.equal(slug("Speedrun: nanoGPT's loss in about a fifth of its time"), 'speedrun-nanogpts-loss-in-about-a-fifth-of-its-time');
  assert.deepEqual(links('[a](docs/x.md#y) `[b](no.md)` ![c](images/d.png)'), ['docs/x.md#y', 'images/d.png']);
});

test("the README is a newcomer's page: at most 300 lines", () => {
  const lines = read('README.md').split('\n').length;
  assert.ok(lines <= 300, `the README has ${lines} lines`);
});
