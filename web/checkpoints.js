// Checkpoints: Save downloads the whole training state; Export downloads it for nanoGPT (with its
// text) and for Transformers, in one zip; Load opens a checkpoint in place of the current model.
import { t } from './i18n.js';
import { chooseTask, restoreText, showMerges, trainingText } from './data-panel.js';
import { on, send } from './engine.js';
import { count, sentences } from './format.js';
import { showSettings } from './model-panel.js';
import { attentionText, setAttentionText } from './attention-panel.js';
import { setProbe } from './inside-panel.js';
import { showTextProblem } from './text-fit.js';
import { restorePrompt, restoreSampleSettings } from './sample-panel.js';
import { setPhase, setStatus, showError, state } from './phase.js';
import { saveFile } from './save-file.js';
import { showLoadedProgress, showRun, showTaskRun } from './training-panel.js';

const $ = (id) => document.getElementById(id);
const ui = { save: $('save'), exportRun: $('export'), load: $('load'), storage: $('storage-status') };

/** The chosen files as one run: ours, nanoGPT's ckpt.pt with its meta.pkl, a Transformers
 * folder's files, or an export's zip (the worker tells them apart). */
async function loadCheckpoint() {
  const chosen = [...ui.load.files];
  if (!chosen.length) return;
  ui.load.value = '';
  const what = chosen.length === 1 ? chosen[0].name : t('checkpoints.files', { n: chosen.length });
  if (state.steps > 0 && !confirm(t('checkpoints.confirm-replace', { steps: state.steps, what }))) return;
  showError('');
  setStatus(t('checkpoints.loading', { what }));
  const files = await Promise.all(chosen.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })));
  const main = chosen.find((f) => /\.(safetensors|pt|pth|zip)$/i.test(f.name)) ?? chosen[0];
  const name = main.name.replace(/(-export)?\.(safetensors|pt|pth|zip)$/i, '');
  send({ type: 'load', files, text: trainingText(), attentionText: attentionText(), name }, files.map((f) => f.bytes));
}

function download({ bytes, step, name }) {
  const filename = `${name ?? 'gpt-playground'}-step${step}.safetensors`;
  saveFile(bytes, filename);
  setStatus(t('checkpoints.saved', { step: count(step), file: filename }));
}

function exported({ bytes, name, leftOut }) {
  const filename = `${name}-export.zip`;
  saveFile(bytes, filename, 'application/zip');
  // The core names a tool it left out as `not for <tool>: why`, in its own (English) words.
  const folders = [
    ['nanoGPT', 'nanogpt', (folder) => t('checkpoints.folder-nanogpt', { folder })],
    ['Transformers', 'transformers', (folder) => t('checkpoints.folder-transformers', { folder })],
  ].filter(([tool]) => !leftOut.some((why) => why.startsWith(`not for ${tool}:`)))
    .map(([, folder, use]) => use(`${name}-${folder}`));
  const missing = leftOut.map((why) => t('checkpoints.left-out', { why }));
  setStatus(sentences([t('checkpoints.exported', { file: filename, folders: folders.join(', ') }), ...missing]));
}

function loaded({ settings, history, uniformLoss, vocabSize, step, merges, lastSample, textProblem, restored, imported, task, milestones }) {
  if (imported?.text !== undefined) restoreText(imported.text, 'own');
  if (restored) {
    restoreText(restored.text, restored.corpusId);
    setAttentionText(restored.page?.attentionText ?? '');
    setProbe(restored.page?.probe ?? '');
    restorePrompt(restored.page?.prompt ?? '');
  }
  if (task) {
    chooseTask(task.config.name);
    if (!restored) setAttentionText(task.held_out_example);
  }
  showTaskRun(task);
  showMerges(merges);
  showSettings(settings);
  restoreSampleSettings(lastSample);
  const total = settings.train.max_iters;
  showRun({ uniformLoss, vocabSize, total, step, history, milestones });
  showLoadedProgress(step, total);
  showTextProblem(textProblem);
  const phase = step >= total ? 'finished' : 'paused';
  const at = { step: count(step), name: restored?.name, tool: imported?.from };
  const what = restored ? (restored.restored ? t('checkpoints.restored', at) : t('checkpoints.opened', at))
    : !imported || imported.from === 'gpt-playground' ? t('checkpoints.loaded', at)
      : imported.text === undefined ? t('checkpoints.loaded-from', at) : t('checkpoints.loaded-from-text', at);
  const next = textProblem ? t('checkpoints.next-fit')
    : phase === 'paused' ? (task ? t('checkpoints.next-resume-task') : t('checkpoints.next-resume'))
      : task ? t('checkpoints.next-more-task') : t('checkpoints.next-more');
  setPhase(phase, sentences([what, next]));
}

export function initCheckpoints() {
  ui.save.addEventListener('click', () => send({ type: 'save' }));
  ui.exportRun.addEventListener('click', () => { showError(''); send({ type: 'export' }); });
  on('exported', exported);
  on('error:export', ({ message }) => showError(t('checkpoints.not-exported', { reason: message })));
  ui.load.addEventListener('change', loadCheckpoint);
  on('saved', download);
  on('loaded', loaded);
  on('storage', ({ message }) => {
    ui.storage.textContent = message;
    ui.storage.hidden = false;
  });
  on('error:load', ({ message }) => {
    showError(message);
    setPhase(state.steps > 0 ? 'paused' : 'idle', t('checkpoints.not-loaded'), true);
  });
}
