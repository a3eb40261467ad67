// The task panel: the settings a task reads (the others hidden and left out of the run's
// settings), what to watch for while it trains, and what its settings make, all from the engine.
import { catalog } from './wasm.js';
import { count } from './format.js';
import { ownedFields } from './setting-fields.js';

const $ = (id) => document.getElementById(id);
const ui = {
  watch: $('task-watch'), summary: $('task-summary'), outlook: $('task-outlook'),
  fields: document.querySelector('.task-fields'), iterations: $('config').elements.max_iters,
};
/** Shows the settings of the task named (null: none), from the engine's description of each. */
const showFieldsOf = ownedFields(ui.fields, catalog().tasks, 'config');

let summary = null; // the engine's summary of the current task settings, while they are valid

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/** A large count in words up to trillions ("210 billion"), as a power of ten past them ("1.8 × 10¹⁹"). */
function roughly(n) {
  if (n < 1e15) return new Intl.NumberFormat('en-US', { notation: 'compact', compactDisplay: 'long', maximumSignificantDigits: 2 }).format(n);
  const exponent = Math.floor(Math.log10(n));
  return `${(n / 10 ** exponent).toFixed(1)} × 10${[...String(exponent)].map((d) => SUPERSCRIPT[d]).join('')}`;
}

/** One of the task's problems, as a person reads it (empty when its settings are invalid). */
export const taskExample = () => summary?.example ?? '';

/** Shows the fields `task` (a name, or null for a text) reads; hides and disables the rest. */
export function enableTaskFields(task) {
  showFieldsOf(task);
}

/** Sets the Iterations field to `steps`, as a learner would type it. */
function trainFor(steps) {
  ui.iterations.value = String(steps);
  ui.iterations.dispatchEvent(new Event('input', { bubbles: true }));
}

/**
 * Says what the settings do to the phenomenon under the preset's recipe (the engine's outlook),
 * before Train; where more steps than `iterations` form it, a button sets them.
 */
function showOutlook(outlook, iterations) {
  ui.outlook.replaceChildren();
  for (const { says, steps } of outlook) {
    const line = document.createElement('p');
    line.textContent = says;
    ui.outlook.append(line);
    if (steps && iterations < steps) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = `Train for ${count(steps)} steps`;
      button.addEventListener('click', () => trainFor(steps));
      ui.outlook.append(button);
    }
  }
  ui.outlook.hidden = outlook.length === 0;
}

/**
 * Shows what the task settings `task` ({name, length, …}) make: the engine's `described` summary
 * (null while they are invalid, their errors shown beside their fields instead), and what they do
 * at `iterations` steps.
 */
export function describeTaskSettings(task, described, iterations) {
  summary = described;
  ui.watch.textContent = summary?.watch_for ?? '';
  showOutlook(summary?.outlook ?? [], iterations);
  if (!summary) {
    ui.summary.textContent = '';
    return;
  }
  const { problems, train_problems: train, example, max_len: tokens } = summary;
  const sets = train == null
    ? `about ${roughly(problems)} problems, ${Math.round(task.train_fraction * 100)}% of them for training and the rest held out`
    : `${count(problems)} problems: ${count(train)} to train on, ${count(problems - train)} held out`;
  ui.summary.textContent = `${sets}. A problem of ${tokens} tokens: ${example}`;
}
