// Runs in a dedicated worker, as the page trains: times single training steps of a preset.
import init, { Trainer, presets } from '../pkg/gpt_playground.js';

self.onmessage = async ({ data: { preset: name, iters } }) => {
  try {
    await init();
    const preset = presets().find((p) => p.name === name);
    if (!preset) throw new Error(`no preset called ${name}`);
    const text = await (await fetch('../assets/shakespeare.txt')).text();
    const trainer = new Trainer({ model: preset.model, train: preset.train }, text);
    trainer.step(3); // warm-up: first-touch allocations and JIT tiering
    const times = [];
    for (let i = 0; i < iters; i++) {
      const t0 = performance.now();
      trainer.step(1);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const ms = times[Math.floor(times.length / 2)];
    const tokens = preset.train.batch_size * preset.model.block_size;
    self.postMessage({ preset: name, ms_per_iter: ms, tokens_per_s: (tokens * 1000) / ms, iters, statistic: 'median' });
  } catch (e) {
    self.postMessage({ error: e.message });
  }
};
