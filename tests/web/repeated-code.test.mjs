// One piece of code serves wherever the logic is the same: no run of six statements appears twice
// in the project's code. Imports, attributes, comments and lines of punctuation alone (a closing
// brace) do not count, so only written logic is compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['crates', 'src', 'web', 'tests', 'bench', 'python', 'scripts'];
const CODE = /\.(rs|js|mjs|py|html|css|sh)$/;
const SKIPPED = /(^|\/)(target|node_modules|pkg[^/]*)(\/|$)/;
/** Lines that are not written logic: comments, imports, attributes and decorators. */
const NOT_LOGIC = /^(\/\/|\/\*|\*|#(?!!?\[)|<!--|"""|use |pub use |import |from \S+ import |export \{|#!?\[|@)/;
const RUN = 6;

/** Every code file under the project's folders, relative to the root. */
const codeFiles = () => FOLDERS.flatMap((folder) => fs.readdirSync(path.join(ROOT, folder), { recursive: true })
  .map((name) => path.join(folder, name))
  .filter((file) => CODE.test(file) && !SKIPPED.test(file)));

/** Each file's statements, trimmed, with their line numbers. */
function statements(text) {
  return text.split('\n').map((line, i) => [line.trim(), i + 1])
    .filter(([line]) => /[\p{L}\p{N}]/u.test(line) && !NOT_LOGIC.test(line));
}

/** Places where a run of `RUN` statements repeats one seen before: "first ~ again". */
export function repeatedRuns(sources) {
  const first = new Map();
  const repeats = [];
  for (const [file, text] of sources) {
    const lines = statements(text);
    let repeating = false; // one report for a longer repeated stretch, at its start
    for (let i = 0; i + RUN <= lines.length; i++) {
      const key = lines.slice(i, i + RUN).map(([line]) => line).join('\n');
      const here = `${file}:${lines[i][1]}`;
      const seen = first.get(key);
      if (seen === undefined) first.set(key, here);
      else if (!repeating) repeats.push(`${seen} ~ ${here}`);
      repeating = seen !== undefined;
    }
  }
  return repeats;
}

test('the check finds six statements written twice, and not imports or closing braces', () => {
  const logic = 'let a = 1;\nlet b = a + 1;\nlet c = b * 2;\nprint(c);\nif c > 2 {\nreturn c;\n}\n';
  const imports = 'use a;\nuse b;\nuse c;\nuse d;\nuse e;\nuse f;\n#[derive(Debug)]\n';
  assert.deepEqual(repeatedRuns([['x.rs', `fn x() {\n${logic}}`], ['y.rs', `fn y() {\n${logic}}`]]), ['x.rs:2 ~ y.rs:2']);
  assert.deepEqual(repeatedRuns([['x.rs', `${imports}}\n}\n}`], ['y.rs', `${imports}}\n}\n}`]]), []);
});

test("no six statements are written twice in the project's code", () => {
  const sources = codeFiles().map((file) => [file, fs.readFileSync(path.join(ROOT, file), 'utf8')]);
  assert.ok(sources.length > 300, `${sources.length} files read`);
  assert.deepEqual(repeatedRuns(sources), []);
});
