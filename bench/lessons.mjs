#!/usr/bin/env node
// How long each bundled lesson's waits take in the page (Chromium, automatic workers), in the
// seconds of training the lesson panel counts, beside the `within` each step promises. Each round
// walks every lesson on a fresh page; the table gives each wait's median and slowest round. The
// tests check that the waits are met; whether they are met within the promise depends on the
// machine, so it is read here (docs/benchmarks.md keeps the machines measured).
// Usage: node bench/lessons.mjs [--rounds 3] [--lessons going-wrong,induction]   (after scripts/build.sh)
import { parseArgs } from 'node:util';
import { openPlayground } from '../tests/e2e/session.mjs';
import { LESSON_IDS, walkLesson } from '../tests/e2e/lesson-walk.mjs';
import { median } from './median.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, lessons: { type: 'string', default: LESSON_IDS.join(',') } } });
const seconds = new Map(); // "lesson: step" → { within, seconds: [] }
for (let round = 0; round < Number(values.rounds); round++) {
  const session = await openPlayground({ width: 1280, height: 900 });
  session.page.on('dialog', (dialog) => dialog.accept());
  try {
    for (const id of values.lessons.split(',')) {
      await walkLesson(session.page, id, ({ step, within, seconds: s, runStep }) => {
        if (!step.directives.some((d) => d.name === 'wait' && d.within)) return;
        const key = `${id}: ${step.title}`;
        if (!seconds.has(key)) seconds.set(key, { within, seconds: [] });
        seconds.get(key).seconds.push(s);
        console.log(JSON.stringify({ round, lesson: id, step: step.title, seconds: s, within, run_step: runStep }));
      });
    }
  } finally {
    await session.close();
  }
}
console.log(`\n| lesson: step | within (s) | median (s) | slowest (s) | slowest / within |\n|---|---:|---:|---:|---:|`);
for (const [key, { within, seconds: s }] of seconds) {
  const slowest = Math.max(...s);
  console.log(`| ${key} | ${within} | ${median(s)} | ${slowest} | ${(slowest / within).toFixed(2)} |`);
}
