// Checkpoints: Save downloads the whole training state; Export downloads it for nanoGPT (with its
// text) and for Transformers, in one zip; Load opens a checkpoint in place of the current model.
import { chooseTask, restoreText, showMerges, trainingText } from './data-panel.js';
import { on, send } from './engine.js';
import { count } from './format.js';
import { showSettings } from './model-panel.js';
import { attentionText, setAttentionText } from './attention-panel.js';
import { setProbe } from './inside-panel.js';
import { showTextProblem } from './text-fit.js';
import { restorePrompt, restoreSampleSettings } from './sample-panel.js';
import { setPhase, setStatus, showError, state } from './phase.js';
import { saveFile } from './save-file.js';
import { showLoadedProgress, showRun, showTaskRun, TRAIN_ON } from './training-panel.js';

const $ = (id) => document.getElementById(id);
const ui = { save: $('save'), exportRun: $('export'), load: $('load'), storage: $('storage-status') };

/** The chosen files as one run: ours, nanoGPT's ckpt.pt with its meta.pkl, a Transformers
 * folder's files, or an export's zip (the worker tells them apart). */
async function loadCheckpoint() {
  const chosen = [...ui.load.files];
  if (!chosen.length) return;
  ui.load.value = '';
  const what = chosen.length === 1 ? chosen[0].name : `${chosen.length} files`;
  if (state.steps > 0 && !confirm(`Replace the current model (${state.steps} steps) with ${what}?`)) return;
  showError('');
  setStatus(`Loading ${what}…`);
  const files = await Promise.all(chosen.map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })));
  const main = chosen.find((f) => /\.(safetensors|pt|pth|zip)$/i.test(f.name)) ?? chosen[0];
  const name = main.name.replace(/(-export)?\.(safetensors|pt|pth|zip)$/i, '');
  send({ type: 'load', files, text: trainingText(), attentionText: attentionText(), name }, files.map((f) => f.bytes));
}

function download({ bytes, step, name }) {
  const filename = `${name ?? 'gpt-playground'}-step${step}.safetensors`;
  saveFile(bytes, filename);
  setStatus(`Saved the model at step ${count(step)} as ${filename}.`);
}

function exported({ bytes, name, leftOut }) {
  const filename = `${name}-export.zip`;
  saveFile(bytes, filename, 'application/zip');
  const folders = [['nanoGPT', 'nanogpt', 'goes into a nanoGPT checkout'], ['Transformers', 'transformers', 'loads with from_pretrained']]
    .filter(([tool]) => !leftOut.some((why) => why.startsWith(`not for ${tool}:`)))
    .map(([, folder, use]) => `${name}-${folder}/ ${use}`);
  const missing = leftOut.map((why) => ` It is ${why}.`).join('');
  setStatus(`Saved ${filename}: ${folders.join(', ')}; each README.md has the commands.${missing}`);
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
  const from = imported && imported.from !== 'gpt-playground' ? ` from ${imported.from}${imported.text === undefined ? '' : ' with its text'}` : '';
  const what = restored ? `${restored.restored ? 'Restored' : 'Opened'} run '${restored.name}'` : `Loaded a model${from}`;
  const sample = task ? 'try it on problems' : 'sample';
  const next = textProblem ? 'Sample from it, or fit the text to train it.'
    : phase === 'paused' ? `Resume to keep training, or ${sample}.` : `${task ? 'Try it on problems' : 'Sample from it'}, or ${TRAIN_ON}.`;
  setPhase(phase, `${what} at step ${count(step)}. ${next}`);
}

export function initCheckpoints() {
  ui.save.addEventListener('click', () => send({ type: 'save' }));
  ui.exportRun.addEventListener('click', () => { showError(''); send({ type: 'export' }); });
  on('exported', exported);
  on('error:export', ({ message }) => showError(`Not exported: ${message}.`));
  ui.load.addEventListener('change', loadCheckpoint);
  on('saved', download);
  on('loaded', loaded);
  on('storage', ({ message }) => {
    ui.storage.textContent = message;
    ui.storage.hidden = false;
  });
  on('error:load', ({ message }) => {
    showError(message);
    setPhase(state.steps > 0 ? 'paused' : 'idle', 'The checkpoint was not loaded; the current model is unchanged.', true);
  });
}
