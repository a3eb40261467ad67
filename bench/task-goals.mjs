// What each task's phenomenon is, as the task benches wait for it: the chart's marks it needs, or
// the held-out accuracy to reach. `bench/tasks.mjs` reads them from the page, `bench/task-grid.mjs`
// from the CLI's JSON lines.

export const GOALS = {
  repeat: { marks: ['induction'], says: 'an induction head (score past 0.4)' },
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
 * the last of its marks, or the evaluation that reached its accuracy.
 */
export function metAt(goal, line) {
  if (goal.accuracy) return line.val_accuracy >= goal.accuracy ? line.step : null;
  const steps = goal.marks.map((mark) => {
    const m = line.milestones?.[mark];
    return typeof m === 'number' ? m : m?.step ?? null;
  });
  return steps.every((s) => s !== null) ? Math.max(...steps) : null;
}
