// In a bench's page: a build of the engine (a package folder served from the repository) opened
// on a bundled text, with training steps and evaluations on the page's own thread. It drives
// builds from before the core owned a step's phases (run.train, run.evaluate) and after (begin,
// advance), so that a build can be timed beside an older one.

/**
 * The run of `preset` in the build at `/dir`, and how to step it and evaluate it; `train` sets
 * training settings over the preset's, and `corpus` names a bundled text.
 */
export async function openRun(dir, preset, evalIters, { corpus = 'shakespeare', train: overrides = {} } = {}) {
  const engine = await import(`/${dir}/gpt_playground.js`);
  await engine.default();
  const presets = engine.catalog ? engine.catalog().presets : engine.presets();
  const { settings } = presets.find((p) => p.name === preset);
  if (evalIters) settings.train.eval_iters = evalIters;
  Object.assign(settings.train, overrides);
  const text = await (await fetch(`/assets/${corpus}.txt`)).text();
  const run = new engine.Run(settings, text, { max_params: 5e7, max_training_bytes: 2 ** 31 });
  const job = (kind) => {
    let progress = run.begin(kind, 0);
    while (progress.next !== 'done') progress = run.advance();
  };
  const train = run.begin ? (steps) => { for (let i = 0; i < steps; i++) job('step'); } : (steps) => run.train(steps);
  const evaluate = run.begin ? () => job('evaluation') : () => run.evaluate();
  return { run, settings, train, evaluate, job };
}
