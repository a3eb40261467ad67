// The house rules a change must keep: no two files import each other (Rust or the page's modules),
// the page's TypeScript declarations, written from the Rust types, type-check, and the bindings
// stay a thin layer of conversions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

function files(dir, ending) {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(ending))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Source without comments and without its tests (`#[cfg(test)]` and what follows). */
function code(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '');
  const tests = text.indexOf('#[cfg(test)]');
  return tests >= 0 ? text.slice(0, tests) : text;
}

/** `a::{b, c::d}` → [`a::b`, `a::c::d`]. */
function expand(path, prefix = '') {
  const open = path.indexOf('{');
  if (open < 0) return [prefix + path];
  const head = path.slice(0, open);
  const parts = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < path.length; i++) {
    if (path[i] === '{') depth++;
    else if (path[i] === '}' && --depth === 0) { parts.push(path.slice(start, i)); break; } else if (path[i] === ',' && depth === 1) { parts.push(path.slice(start, i)); start = i + 1; }
  }
  return parts.filter(Boolean).flatMap((p) => (p === 'self' ? [prefix + head.replace(/::$/, '')] : expand(p, prefix + head)));
}

/**
 * Each Rust file's dependencies on the crate's other files: the modules its `use` statements and
 * its `crate::`, `super::` and child-module paths name (a `pub use` re-export, a module's public
 * face, is not one; nor is a `mod` declaration).
 */
function rustGraph(src, graph) {
  const moduleOf = new Map();
  const fileOf = new Map();
  for (const file of files(src, '.rs')) {
    let parts = path.relative(src, file).replace(/\.rs$/, '').split(path.sep);
    if (['mod', 'lib', 'main'].includes(parts.at(-1))) parts = parts.slice(0, -1);
    moduleOf.set(file, parts);
    fileOf.set(parts.join('::'), file);
  }
  for (const [file, self] of moduleOf) {
    const text = code(file);
    const paths = [];
    for (const [, , vis, use] of text.matchAll(/(^|\n)\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);/g)) if (!vis) paths.push(...expand(use.replace(/\s+/g, '')));
    paths.push(...[...text.matchAll(/\b(?:crate|super|self)(?:::\w+)+/g)].map((m) => m[0]));
    const children = [...text.matchAll(/^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+);/gm)].map((m) => m[1]);
    for (const child of children) paths.push(...[...text.matchAll(new RegExp(`(?<![\\w:])${child}::\\w+`, 'g'))].map((m) => m[0]).filter((p) => !text.includes(`pub use ${p}`)));
    for (const p of paths) {
      let segs = p.split('::');
      let base;
      if (segs[0] === 'crate') [base, segs] = [[], segs.slice(1)];
      else if (segs[0] === 'super' || segs[0] === 'self') {
        base = [...self];
        while (segs[0] === 'super') [base, segs] = [base.slice(0, -1), segs.slice(1)];
        if (segs[0] === 'self') segs = segs.slice(1);
      } else base = [...self];
      for (let n = segs.length; n >= 0; n--) {
        const target = fileOf.get([...base, ...segs.slice(0, n)].join('::'));
        if (target) {
          if (target !== file) graph.get(file).add(target);
          break;
        }
      }
    }
  }
}

function cycles() {
  const graph = new Map();
  const sources = [path.join(ROOT, 'crates/gpt/src'), path.join(ROOT, 'crates/gpt-cli/src'), path.join(ROOT, 'src')];
  for (const src of sources) for (const f of files(src, '.rs')) graph.set(f, new Set());
  for (const src of sources) rustGraph(src, graph);
  for (const file of files(path.join(ROOT, 'web'), '.js')) {
    graph.set(file, graph.get(file) ?? new Set());
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(['"](\.[^'"]+)['"]\)/g)) {
      graph.get(file).add(path.resolve(path.dirname(file), m[1] ?? m[2]));
    }
  }
  // Tarjan's strongly connected components: any of more than one file is a cycle.
  const [index, low, stack, on, found] = [new Map(), new Map(), [], new Set(), []];
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do { w = stack.pop(); on.delete(w); component.push(path.relative(ROOT, w)); } while (w !== v);
      if (component.length > 1) found.push(component.sort().join(' ↔ '));
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no two files import each other, in the core, the CLI, the bindings or the page', () => {
  assert.deepEqual(cycles(), []);
});

/**
 * Each top-level module of the core (`crates/gpt/src`) and the modules its `crate::` paths name,
 * in code or in doc links, outside its tests. A name the crate root re-exports (`crate::GPT`) or
 * defines as an alias (`crate::Run`) counts as the modules it comes from.
 */
function coreModules() {
  const src = path.join(ROOT, 'crates/gpt/src');
  const top = (file) => path.relative(src, file).split(path.sep)[0].replace(/\.rs$/, '');
  const modules = new Set(files(src, '.rs').map(top).filter((m) => m !== 'lib'));
  const lib = fs.readFileSync(path.join(src, 'lib.rs'), 'utf8');
  const root = new Map();
  for (const [, use] of lib.matchAll(/pub use\s+([^;]+);/g)) {
    for (const p of expand(use.replace(/\s+/g, ''))) root.set(p.split('::').at(-1), [p.split('::')[0]]);
  }
  for (const [, name, alias] of lib.matchAll(/pub type\s+(\w+)\s*=\s*([^;]+);/g)) root.set(name, [...alias.matchAll(/(\w+)::/g)].map((m) => m[1]));
  const graph = new Map([...modules].map((m) => [m, new Map()]));
  for (const file of files(src, '.rs')) {
    const from = top(file);
    if (from === 'lib') continue;
    const text = fs.readFileSync(file, 'utf8');
    const tests = text.indexOf('#[cfg(test)]');
    const body = tests >= 0 ? text.slice(0, tests) : text;
    const paths = [...body.matchAll(/\buse\s+(crate::[^;]+);/g)].flatMap(([, use]) => expand(use.replace(/\s+/g, '')));
    paths.push(...[...body.matchAll(/\bcrate(?:::\w+)+/g)].map((m) => m[0]));
    for (const p of paths) {
      const name = p.split('::')[1];
      for (const to of modules.has(name) ? [name] : root.get(name) ?? []) {
        if (to === from) continue;
        if (!graph.get(from).has(to)) graph.get(from).set(to, new Set());
        graph.get(from).get(to).add(`${path.relative(src, file)}: ${p}`);
      }
    }
  }
  return graph;
}

test('no two top-level modules of the core import each other: each floor imports only those below it', () => {
  const graph = coreModules();
  const pairs = [];
  for (const [a, names] of graph) {
    for (const [b, where] of names) if (a < b && graph.get(b).has(a)) pairs.push(`${a} ↔ ${b} (${[...where, ...graph.get(b).get(a)].join('; ')})`);
  }
  assert.deepEqual(pairs, []);
  // The floors docs/ARCHITECTURE.md draws, lowest first: a module names only modules on its own
  // floor or below (and no module on its floor that names it back, held above).
  const floors = [
    ['words', 'error', 'rng', 'workspace', 'fields', 'autograd', 'ops', 'params'], ['optim', 'llc'], ['config'], ['work'], ['train'],
    ['model'], ['data', 'sample', 'sae', 'toy'], ['tokenizer', 'text_stats'], ['settings', 'checkpoint'], ['built'], ['run'],
    ['inspect', 'interop', 'presets', 'catalog', 'compare'],
  ];
  const floor = new Map(floors.flatMap((names, i) => names.map((n) => [n, i])));
  assert.deepEqual([...graph.keys()].filter((m) => !floor.has(m)), [], 'every module has a floor');
  const upward = [...graph].flatMap(([a, names]) => [...names].filter(([b]) => floor.get(b) > floor.get(a))
    .map(([b, where]) => `${a} → ${b} (${[...where].join('; ')})`));
  assert.deepEqual(upward, []);
});

test("the page's TypeScript declarations, written from the Rust types, type-check", () => {
  const declarations = path.join(ROOT, 'pkg/gpt_playground.d.ts');
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  execFileSync(tsc, ['--noEmit', '--strict', '--lib', 'esnext,dom', declarations], { encoding: 'utf8' });
  const text = fs.readFileSync(declarations, 'utf8');
  for (const type of ['Settings', 'TrainConfig', 'TrainingCurve', 'Inside', 'Progress', 'TaskInfo', 'ToyJob', 'ToyProgress', 'Cell']) {
    assert.match(text, new RegExp(`export (interface|type) ${type}\\b`), `${type} is declared`);
  }
});

test('the bindings only convert: under 400 lines (the GPT\'s run, its helpers and the toy models), with at most six entry points for sharing work', () => {
  const lines = files(path.join(ROOT, 'src'), '.rs').reduce((n, f) => n + fs.readFileSync(f, 'utf8').trimEnd().split('\n').length, 0);
  assert.ok(lines < 400, `the bindings are ${lines} lines`);
  const sharing = ['begin', 'advance', 'accept', 'abort', 'answer', 'Replica'];
  const bindings = files(path.join(ROOT, 'src'), '.rs').map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  for (const name of sharing) assert.match(bindings, new RegExp(`pub (fn|struct) ${name}\\b`));
  assert.doesNotMatch(bindings, /muon|adamw|newton/i, 'the bindings name no optimizer');
});
