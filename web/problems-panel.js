// Sampling for a task's model: held-out problems with the model's answers, each marked right or
// wrong (refreshed as it trains), and problems the person types. A text's model streams samples
// instead (sample-panel.js).
import { t } from './i18n.js';
import { on, send } from './engine.js';

const $ = (id) => document.getElementById(id);
const ui = {
  panel: $('problems-panel'), textSampling: $('text-sampling'), form: $('solve-form'), problem: $('problem'),
  error: $('solve-error'), typed: $('typed-solutions'), heldOut: $('solutions'), hint: $('solutions-hint'),
};
/** Typed problems kept on screen, newest first. */
const KEEP_TYPED = 5;

/** One problem and the model's answer, marked; `typed` ones also say whether training saw them. */
const ORIGINS = {
  training: () => t('problems.origin-training'), held_out: () => t('problems.origin-held-out'), outside: () => t('problems.origin-outside'),
};

function solutionItem({ prompt, answer, expected, correct, origin }, typed) {
  const item = document.createElement('li');
  item.className = correct ? 'right' : 'wrong';
  const problem = document.createElement('code');
  problem.textContent = prompt;
  const reply = document.createElement('code');
  reply.className = 'answer';
  reply.textContent = answer;
  const mark = document.createElement('span');
  mark.className = 'mark';
  mark.textContent = correct ? t('problems.right') : t('problems.wrong', { expected });
  item.append(problem, reply, mark);
  if (typed) {
    const seen = document.createElement('span');
    seen.className = 'hint';
    seen.textContent = ` ${ORIGINS[origin]()}`;
    item.append(seen);
  }
  return item;
}

/** Shows the problems view for a task's model (`task` its name), the text sampler otherwise. */
export function showSamplingFor(task) {
  ui.panel.hidden = !task;
  ui.textSampling.hidden = Boolean(task);
  ui.error.textContent = '';
  ui.typed.replaceChildren();
  ui.heldOut.replaceChildren();
  ui.hint.textContent = task ? t('problems.appear') : '';
  ui.problem.placeholder = '';
}

/** Shows a held-out problem's prompt as a placeholder, so the format is plain. */
export function suggestProblem(example) {
  const prompt = example.match(/^[^>=]*[>=]/)?.[0] ?? '';
  ui.problem.placeholder = prompt ? t('problems.example', { prompt: prompt.slice(0, -1) }) : '';
}

export function initProblems() {
  ui.form.addEventListener('submit', (e) => {
    e.preventDefault();
    ui.error.textContent = '';
    send({ type: 'solve', problem: ui.problem.value });
  });
  on('solutions', ({ solutions }) => {
    const right = solutions.filter((s) => s.correct).length;
    ui.hint.textContent = t('problems.score', { right, total: solutions.length });
    ui.heldOut.replaceChildren(...solutions.map((s) => solutionItem(s, false)));
  });
  on('solved', ({ solution }) => {
    ui.typed.prepend(solutionItem(solution, true));
    while (ui.typed.children.length > KEEP_TYPED) ui.typed.lastElementChild.remove();
  });
  on('error:solve', ({ message }) => { ui.error.textContent = message; });
}
