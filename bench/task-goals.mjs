// What each task's phenomenon is, as the task benches wait for it: the chart's marks it needs, or
// the held-out accuracy to reach. `bench/tasks.mjs` reads them from the page, `bench/task-grid.mjs`
// from the CLI's JSON lines.

export const GOALS = {
  // The mark alone is not enough: at short lengths a first-layer head passes 0.4 while the copies
  // stay wrong (length 8: the mark at step 150, 16% held out).
  repeat: { marks: ['induction'], accuracy: 0.9, says: 'an induction head (score past 0.4) and 90% held out' },
  reverse: { accuracy: 0.99, says: '99% held out' },
  sort: { accuracy: 0.99, says: '99% held out' },
  addition: { accuracy: 0.95, says: '95% held out' },
  modular: { marks: ['memorised', 'generalised'], says: '100% of training problems, then 95% held out' },
  brackets: { accuracy: 0.99, says: '99% held out' },
  parity: { accuracy: 0.99, says: '99% held out' },
  recall: { accuracy: 0.9, says: '90% held out' },
};

/**
 * The step at which `goal` was met, from one of `gpt train --json`'s lines (null while it is not):
 * the last of its marks, once its accuracy (if it has one) is reached too.
 */
export function metAt(goal, line) {
  if (goal.accuracy && !(line.val_accuracy >= goal.accuracy)) return null;
  const steps = (goal.marks ?? []).map((mark) => {
    const m = line.milestones?.[mark];
    return typeof m === 'number' ? m : m?.step ?? null;
  });
  if (steps.some((s) => s === null)) return null;
  return Math.max(...steps, ...(goal.accuracy ? [line.step] : []));
}
