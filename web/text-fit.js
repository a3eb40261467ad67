// Whether the current model can train on the text in the box: a checkpoint opens whatever the
// text, and samples at once; to train, the text must use only the model's characters. When it
// does not, the notice lists the missing ones and offers to drop them from the text (the model
// never changes).
import { t } from './i18n.js';
import { on, send } from './engine.js';
import { tokenLabel } from './format.js';
import { hasModel, render, state } from './phase.js';
import { onTextCounted, replaceText, trainingText } from './data-panel.js';

const $ = (id) => document.getElementById(id);
const ui = { notice: $('text-problem'), message: $('text-problem-message'), drop: $('drop-missing') };

const describe = (c) => `“${tokenLabel(c)}” (U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')})`;

/** Shows that the text does not fit the model (`missing` characters), or that it does (null). */
export function showTextProblem(problem) {
  state.hasText = !problem;
  ui.notice.hidden = !problem;
  if (problem) {
    const { missing } = problem;
    const shown = missing.slice(0, 12).map(describe).join(', ');
    const listed = missing.length > 12 ? t('fit.more', { listed: shown, n: missing.length - 12 }) : shown;
    ui.message.textContent = t('fit.missing', { n: missing.length, listed });
  }
  render();
}

/** The text changed: a paused or loaded model trains on it from now on, if it can. */
function textEdited(text) {
  if (hasModel() && state.phase !== 'training') send({ type: 'use-text', text });
}

export function initTextFit() {
  onTextCounted(textEdited);
  ui.drop.addEventListener('click', () => send({ type: 'fit-text', text: trainingText() }));
  on('text-ok', () => showTextProblem(null));
  on('text-problem', (problem) => showTextProblem(problem));
  on('text-fitted', ({ text }) => replaceText(text)); // the data panel recounts it and the model takes it
}
