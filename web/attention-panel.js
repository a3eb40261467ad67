// The attention panel: which text to read attention over, and the live grid of heads.
import { t } from './i18n.js';
import { AttentionView } from './attention-view.js';
import { readConfig } from './config-form.js';
import { corpusSnippet } from './data-panel.js';
import { on, send } from './engine.js';
import { promptText } from './sample-panel.js';

const $ = (id) => document.getElementById(id);
const ui = { text: $('attention-text'), error: $('attention-error'), form: $('config') };
const view = new AttentionView({
  grid: $('attention-grid'), dialog: $('attention-dialog'), dialogTitle: $('attention-dialog-title'),
  large: $('attention-large'), readout: $('attention-large-readout'), tooltip: $('attention-tooltip'),
});

export const attentionText = () => ui.text.value;

export function setAttentionText(text) {
  ui.text.value = text;
}

export function clearAttention() {
  view.clear();
}

/** A task's model reads attention on a problem: the buttons offer a held-out one (`example`) and the one typed. */
let heldOutExample = null;
export function setAttentionSource(task, example) {
  heldOutExample = task ? example : null;
  $('attention-from-prompt').textContent = task ? t('attention.use-typed') : t('attention.use-prompt');
  $('attention-from-corpus').textContent = task ? t('attention.held-out') : t('attention.corpus-snippet');
}

let timer = 0;
function textChanged() {
  clearTimeout(timer);
  timer = setTimeout(() => {
    ui.error.textContent = '';
    send({ type: 'attention', text: ui.text.value });
  }, 200);
}

export function initAttention() {
  ui.text.addEventListener('input', textChanged);
  $('attention-from-prompt').addEventListener('click', () => {
    ui.text.value = heldOutExample === null ? promptText() : $('problem').value;
    textChanged();
  });
  $('attention-from-corpus').addEventListener('click', () => {
    ui.text.value = heldOutExample ?? corpusSnippet(readConfig(ui.form).config?.model.block_size ?? 32);
    textChanged();
  });
  on('attention', ({ maps }) => {
    ui.error.textContent = '';
    view.update(maps);
  });
  on('error:attention', ({ message }) => { ui.error.textContent = message; });
}
