// The page's words all come from its catalogs: every catalog holds exactly English's keys, with
// the same arguments; every key is used; and no module or the page's HTML shows words of its own.
// The modules are read by TypeScript's parser, so a string is found wherever the code puts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { LANGUAGES, format, setCatalogs } from '../../web/i18n.js';

const WEB = path.resolve(import.meta.dirname, '../../web');
const catalog = (code) => JSON.parse(fs.readFileSync(path.join(WEB, 'locales', `${code}.json`), 'utf8'));
const english = catalog('en');

// i18n.js is the catalogs' reader: its few words are its own errors, for developers.
const modules = fs.readdirSync(WEB, { recursive: true })
  .filter((f) => f.endsWith('.js') && f !== 'i18n.js')
  .map((f) => ({ name: f, source: ts.createSourceFile(f, fs.readFileSync(path.join(WEB, f), 'utf8'), ts.ScriptTarget.Latest, true) }));
const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');

/** Words a reader would read: two words in a row, or one capitalised word. */
const WORDS = /[A-Za-z]{2,}[’']?[a-z]* +[A-Za-z]{2,}|^\s*[A-Z][a-z]{2,}\b|[a-z]{2,}[ /,;:·()]+(\{\}[ ,;:·()]*)+[a-z]{3,}|^\s*\{\} +[a-z]{3,}/;
/** Proper names and the field's symbols, the same in every language. */
const NAMES = /^(gpt-playground|nanoGPT|Transformers|wasm|MLP|GELU|ReLU|LayerNorm|RMSNorm|AdamW|Muon|RoPE|QK-norm|Top-k|TopK|BPE|SIMD128.*|[\d.,×·% -]+)$/;

/** Calls whose string arguments are names for code, not words for people. */
const CODE_CALLS = new Set([
  'getElementById', 'querySelector', 'querySelectorAll', 'closest', 'matches', 'addEventListener', 'removeEventListener',
  'createElement', 'createElementNS', 'getAttribute', 'removeAttribute', 'hasAttribute', 'toggleAttribute', 'add', 'remove',
  'toggle', 'contains', 'getItem', 'setItem', 'removeItem', 'fetch', 'URL', 'Worker', 'getContext', 'postMessage',
  'log', 'warn', 'error', 'info', 'debug', 't', 'tParts', 'import', 'mark', 'measure', 'startsWith', 'endsWith', 'includes',
]);

/** Properties whose values are code: a class list, a canvas font or style, a link's rel. */
const CODE_PROPERTIES = new Set(['className', 'font', 'fillStyle', 'strokeStyle', 'textAlign', 'textBaseline', 'rel', 'type', 'cssText']);

/** The name a call's callee ends in: `a.b.c(...)` is `c`. */
function calleeName(call) {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (e.kind === ts.SyntaxKind.ImportKeyword) return 'import';
  return '';
}

/** A list of CSS classes, one of them hyphenated: `readout stage-readout`. */
const CLASSES = /^(?=.*-)[a-z]+(-[a-z]+)*( [a-z]+(-[a-z]+)*)*$/;
/** A canvas font: `11px system-ui, sans-serif`. */
const FONT = /^\d+px [\w-]+(, [\w-]+)*$/;

/** Whether a string at `node` is code (a selector, an event, a key, a compared value), not words. */
function isCode(node) {
  while (ts.isConditionalExpression(node.parent) || ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name === node) return true;
  if (ts.isPropertyAssignment(parent) && ['class', ...CODE_PROPERTIES].includes(parent.name.getText())) return true;
  if (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) return true;
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.arguments?.includes(node)) {
    const name = ts.isNewExpression(parent) ? parent.expression.getText() : calleeName(parent);
    if (CODE_CALLS.has(name)) return true;
    if (name === 'setAttribute' && parent.arguments[0] === node) return true;
    if (/^console\./.test(parent.expression.getText?.() ?? '')) return true;
  }
  if (ts.isBinaryExpression(parent) && parent.right === node && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
    && ts.isPropertyAccessExpression(parent.left) && CODE_PROPERTIES.has(parent.left.name.text)) return true;
  if (ts.isBinaryExpression(parent) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(parent.operatorToken.kind)) return true;
  if (ts.isCaseClause(parent)) return true;
  return false;
}

/** Where a string reaches the screen or a screen reader: there even one word must come from a catalog. */
const SHOWN_PROPERTIES = new Set(['textContent', 'innerText', 'title', 'placeholder', 'label', 'ariaLabel', 'alt', 'xLabel', 'yLabel', 'caption', 'rowLabel', 'colLabel', 'text']);
const SHOWN_CALLS = new Set(['fillText', 'append', 'prepend', 'replaceChildren', 'after', 'before', 'alert', 'confirm', 'prompt', 'Option']);
const SHOWN_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'aria-valuetext', 'aria-roledescription']);

function isShown(node) {
  while (ts.isConditionalExpression(node.parent) || ts.isParenthesizedExpression(node.parent) || ts.isTemplateSpan(node.parent)
    || (ts.isArrowFunction(node.parent) && node.parent.body === node)
    || (ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.PlusToken)) node = node.parent.kind === ts.SyntaxKind.TemplateSpan ? node.parent.parent : node.parent;
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && parent.right === node && ts.isPropertyAccessExpression(parent.left)) return SHOWN_PROPERTIES.has(parent.left.name.text);
  if (ts.isPropertyAssignment(parent) && parent.initializer === node) return SHOWN_PROPERTIES.has(parent.name.getText());
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const name = ts.isNewExpression(parent) ? parent.expression.getText() : calleeName(parent);
    if (name === 'setAttribute') return parent.arguments[1] === node && SHOWN_ATTRIBUTES.has(parent.arguments[0]?.text);
    if (name === 'Option') return parent.arguments[0] === node;
    return SHOWN_CALLS.has(name);
  }
  return false;
}

/** The words of a string or template literal, its `${}` parts left out. */
function literalText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' {} ');
  return null;
}

/** The keys a `t` call's first argument names: a literal, or a choice between literals. */
function literalKeys(node) {
  if (node && ts.isStringLiteral(node)) return [node.text];
  if (node && ts.isParenthesizedExpression(node)) return literalKeys(node.expression);
  if (node && ts.isConditionalExpression(node)) {
    const [a, b] = [literalKeys(node.whenTrue), literalKeys(node.whenFalse)];
    return a && b ? [...a, ...b] : null;
  }
  return null;
}

/** The keys a module asks `t` for (its first argument must be a literal, so every use is seen). */
function scan({ name, source }) {
  const keys = [];
  const words = [];
  const dynamic = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && ['t', 'tParts'].includes(calleeName(node)) && ts.isIdentifier(node.expression)) {
      const named = literalKeys(node.arguments[0]);
      if (named) keys.push(...named);
      else dynamic.push(`${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    const text = literalText(node);
    const shownWord = text !== null && /[A-Za-z]{2,}/.test(text) && isShown(node);
    if (text !== null && !NAMES.test(text.replace(/\{\}/g, '').trim()) && ((WORDS.test(text) && !CLASSES.test(text) && !FONT.test(text) && !isCode(node)) || shownWord)) {
      words.push(`${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${JSON.stringify(text.slice(0, 80))}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { name, keys, words, dynamic };
}

const scanned = modules.map(scan);
/** The keys the HTML names in data-i18n and data-i18n-attrs. */
const htmlKeys = [
  ...[...html.matchAll(/data-i18n="([^"]+)"/g)].map((m) => m[1]),
  ...[...html.matchAll(/data-i18n-attrs="([^"]+)"/g)].flatMap((m) => m[1].trim().split(/\s+/).map((p) => p.split(':')[1])),
];

test("every call of t is the catalogs' t, not a local t that hides it, and t is only called", () => {
  const program = ts.createProgram(modules.map((m) => path.join(WEB, m.name)), { allowJs: true, noEmit: true, target: ts.ScriptTarget.Latest, module: ts.ModuleKind.ESNext });
  const checker = program.getTypeChecker();
  const hidden = [];
  for (const file of program.getSourceFiles().filter((f) => f.fileName.startsWith(WEB) && !f.fileName.endsWith('/i18n.js'))) {
    const visit = (node) => {
      const where = () => `${path.relative(WEB, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ['t', 'tParts'].includes(node.expression.text)) {
        const declaration = checker.getSymbolAtLocation(node.expression)?.declarations?.[0];
        if (!declaration || !ts.isImportSpecifier(declaration)) hidden.push(where());
      }
      // The imported t used as a value (a local t renamed, its uses left behind) is a number's NaN.
      if (ts.isIdentifier(node) && node.text === 't' && !ts.isImportSpecifier(node.parent)
        && !(ts.isCallExpression(node.parent) && node.parent.expression === node)
        && ts.isImportSpecifier(checker.getSymbolAtLocation(node)?.declarations?.[0] ?? node)) hidden.push(`${where()} (not called)`);
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  assert.deepEqual(hidden, []);
});

test('every module asks for its words by a literal key', () => {
  assert.deepEqual(scanned.flatMap((s) => s.dynamic), []);
});

test('no module shows words of its own: each comes from a catalog', () => {
  assert.deepEqual(scanned.flatMap((s) => s.words), []);
});

test("the page's HTML holds no words outside its catalog keys", () => {
  const body = html.slice(html.indexOf('<body>'))
    .replace(/<(script|style|code)[^>]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, '\n');
  const raw = body.split('\n').map((s) => s.trim()).filter((s) => s && WORDS.test(s) && !NAMES.test(s));
  assert.deepEqual(raw, []);
  const attrs = [...html.matchAll(/\s(aria-label|title|placeholder|alt)="([^"]*)"/g)].map((m) => m[2]).filter((v) => WORDS.test(v) && !NAMES.test(v));
  assert.deepEqual(attrs, []);
});

test('every key in English is used, and every key used is in English', () => {
  const used = new Set([...htmlKeys, ...scanned.flatMap((s) => s.keys)]);
  assert.deepEqual([...used].filter((k) => !(k in english)), [], 'keys used but missing from en.json');
  assert.deepEqual(Object.keys(english).filter((k) => !used.has(k)), [], 'keys in en.json never used');
});

/** The argument names a message uses, sorted: in its select and plural cases too. */
const argumentsOf = (message) => [...new Set(argumentNames(message))].sort();

function argumentNames(message) {
  return outermost(message).flatMap((body) => {
    const [name, kind, ...rest] = body.split(',');
    const cases = ['select', 'plural'].includes(kind?.trim()) ? outermost(rest.join(',')).flatMap(argumentNames) : [];
    return [name.trim(), ...cases];
  });
}

/** What each outermost `{…}` of `text` holds. */
function outermost(text) {
  const out = [];
  let depth = 0;
  let start = 0;
  [...text].forEach((c, i) => {
    if (c === '{' && depth++ === 0) start = i + 1;
    else if (c === '}' && --depth === 0) out.push(text.slice(start, i));
  });
  return out;
}

/** The engine: its catalog of presets, tasks, optimisers and the messages it says. */
async function engineCatalog() {
  const engine = await import('../../pkg/gpt_playground.js');
  await engine.default({ module_or_path: fs.readFileSync(path.join(WEB, '../pkg/gpt_playground_bg.wasm')) });
  return engine.catalog();
}

/** The English the engine and the bundled corpora write: the catalogs word it under `@core`. */
async function coreEnglish() {
  const { presets, tasks, optimizers } = await engineCatalog();
  const fields = (owner) => owner.fields.flatMap((f) => [f.label, f.help, ...(f.accepts.options ?? []).map(([, text]) => text)]);
  const corpora = JSON.parse(fs.readFileSync(path.join(WEB, '../assets/corpora.json'), 'utf8'));
  return [...new Set([
    ...presets.flatMap((p) => [p.name, p.description]), ...[...tasks, ...optimizers].flatMap((o) => [o.title, ...fields(o)]),
    ...corpora.flatMap((c) => [c.title, c.description, c.source]),
  ])].sort();
}

for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
  test(`the ${code} catalog holds every key, no other, with the same arguments`, () => {
    const { '@core': core, '@words': words, ...other } = catalog(code);
    assert.deepEqual(Object.keys(english).filter((k) => !(k in other)), [], 'missing');
    assert.deepEqual(Object.keys(other).filter((k) => !(k in english)), [], 'not in English');
    const differ = Object.keys(english).filter((k) => JSON.stringify(argumentsOf(english[k])) !== JSON.stringify(argumentsOf(other[k])));
    assert.deepEqual(differ, [], 'arguments differ');
  });
}

for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
  test(`the ${code} catalog words all the engine's and the corpora's English, and nothing else`, async () => {
    assert.deepEqual(Object.keys(catalog(code)['@core'] ?? {}).sort(), await coreEnglish());
  });
}

for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
  test(`the ${code} catalog words every message the engine says, with its arguments, and reads`, async () => {
    const { words } = await engineCatalog();
    const theirs = catalog(code)['@words'] ?? {};
    assert.deepEqual(words.map((m) => m.code).filter((c) => !(c in theirs)), [], 'missing');
    assert.deepEqual(Object.keys(theirs).filter((c) => !words.some((m) => m.code === c)), [], 'not said by the engine');
    const differ = words.filter((m) => JSON.stringify(argumentsOf(m.english)) !== JSON.stringify(argumentsOf(theirs[m.code] ?? '')));
    assert.deepEqual(differ.map((m) => m.code), [], 'arguments differ');
    setCatalogs(code, catalog(code), english);
    for (const m of words) {
      const values = Object.fromEntries(m.values.map((name) => [name, 1]));
      assert.doesNotThrow(() => format(theirs[m.code], values, code), m.code);
    }
  });
}
