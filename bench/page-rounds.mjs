// What the page benches of a trained run share: a fresh page with the run and its text loaded and
// a section open, and rounds of worker counts run side by side.
import { openPlayground } from '../tests/e2e/session.mjs';

/**
 * A fresh page in Chromium with `checkpoint` loaded on `data` (the text it trained on), `workers`
 * chosen and the section titled `section` opened; `use(page)` gets it, and the page closes after.
 */
export async function withRun({ checkpoint, data, workers, section }, use) {
  const session = await openPlayground({ width: 1280, height: 1000 });
  const { page } = session;
  try {
    await page.getByLabel('Upload .txt').setInputFiles(data);
    await page.getByLabel('Load checkpoint').setInputFiles(checkpoint);
    await page.getByLabel('Workers').selectOption(workers);
    await page.getByText(section).click();
    return await use(page);
  } finally {
    await session.close();
  }
}

/** `rounds` rounds of `round(workers)` for each of `counts` in turn, each result logged by `say`: each count's results. */
export async function sideBySide(counts, rounds, round, say) {
  const results = Object.fromEntries(counts.map((w) => [w, []]));
  for (let r = 0; r < rounds; r++) {
    for (const workers of counts) {
      const result = await round(workers);
      results[workers].push(result);
      console.log(`round ${r + 1}, workers ${workers}: ${say(result)}`);
    }
  }
  return results;
}
