// The task panel: the settings a task reads (the others hidden and left out of the run's
// settings), what to watch for while it trains, and what its settings make, all from the engine.
import { roughly, say, t } from './i18n.js';
import { catalog } from './wasm.js';
import { count } from './format.js';
import { ownedFields } from './setting-fields.js';

const $ = (id) => document.getElementById(id);
const ui = {
  watch: $('task-watch'), summary: $('task-summary'), outlook: $('task-outlook'),
  fields: document.querySelector('.task-fields'), iterations: $('config').elements.max_iters,
  optimizer: $('config').elements.optimizer,
};
/** Shows the settings of the task named (null: none), from the engine's description of each. */
const showFieldsOf = ownedFields(ui.fields, catalog().tasks, 'config');

let summary = null; // the engine's summary of the current task settings, while they are valid

/** One of the task's problems, as a person reads it (empty when its settings are invalid). */
export const taskExample = () => summary?.example ?? '';

/** Shows the fields `task` (a name, or null for a text) reads; hides and disables the rest. */
export function enableTaskFields(task) {
  showFieldsOf(task);
}

/** Sets `field` to `value`, as a learner would (whose edit fires both events). */
function set(field, value) {
  field.value = String(value);
  for (const type of ['input', 'change']) field.dispatchEvent(new Event(type, { bubbles: true }));
}

/**
 * Says what the settings do to the phenomenon under the preset's recipe (the engine's outlook),
 * before Train; where more steps than `iterations`, or another optimiser, form it, a button sets them.
 */
function showOutlook(outlook, iterations) {
  ui.outlook.replaceChildren();
  const button = (label, onClick) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.addEventListener('click', onClick);
    ui.outlook.append(b);
  };
  for (const { says, steps, optimizer } of outlook) {
    const line = document.createElement('p');
    line.textContent = say(says);
    ui.outlook.append(line);
    if (steps && iterations < steps) button(t('task.train-for', { steps: count(steps) }), () => set(ui.iterations, steps));
    const option = optimizer && [...ui.optimizer.options].find((o) => o.value === optimizer);
    if (option && ui.optimizer.value !== optimizer) button(t('task.train-with', { optimizer: option.textContent }), () => set(ui.optimizer, optimizer));
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
  ui.watch.textContent = summary ? say(summary.watch_for) : '';
  showOutlook(summary?.outlook ?? [], iterations);
  if (!summary) {
    ui.summary.textContent = '';
    return;
  }
  const { problems, train_problems: train, example, max_len: tokens } = summary;
  const sets = train == null
    ? t('task.sets-rough', { problems: roughly(problems), percent: Math.round(task.train_fraction * 100) })
    : t('task.sets', { problems: count(problems), train: count(train), held: count(problems - train) });
  ui.summary.textContent = t('task.summary', { sets, tokens, example });
}
