// Checkpoints: Save downloads the whole training state; Export for nanoGPT downloads it with its
// text as a nanoGPT checkout (a zip); Load opens a checkpoint in place of the current model.
import { chooseTask, restoreText, showMerges, trainingText } from './data-panel.js';
import { on, send } from './engine.js';
import { count } from './format.js';
import { showSettings } from './model-panel.js';
import { attentionText, setAttentionText } from './attention-panel.js';
import { setProbe } from './inside-panel.js';
import { showTextProblem } from './text-fit.js';
import { restorePrompt, restoreSampleSettings } from './sample-panel.js';
import { setPhase, setStatus, showError, state } from './phase.js';
import { showLoadedProgress, showRun, showTaskRun, TRAIN_ON } from './training-panel.js';

const $ = (id) => document.getElementById(id);
const ui = { save: $('save'), exportNanogpt: $('export-nanogpt'), load: $('load'), storage: $('storage-status') };

async function loadCheckpoint() {
  const file = ui.load.files[0];
  if (!file) return;
  ui.load.value = '';
  if (state.steps > 0 && !confirm(`Replace the current model (${state.steps} steps) with ${file.name}?`)) return;
  showError('');
  setStatus(`Loading ${file.name}…`);
  const bytes = await file.arrayBuffer();
  const name = file.name.replace(/\.safetensors$/i, '');
  send({ type: 'load', bytes, text: trainingText(), attentionText: attentionText(), name }, [bytes]);
}

/** Downloads `bytes` as a file called `filename`. */
function saveFile(bytes, filename, type = 'application/octet-stream') {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([bytes], { type }));
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

function download({ bytes, step, name }) {
  const filename = `${name ?? 'gpt-playground'}-step${step}.safetensors`;
  saveFile(bytes, filename);
  setStatus(`Saved the model at step ${count(step)} as ${filename}.`);
}

function exported({ bytes, name }) {
  const filename = `${name}-nanogpt.zip`;
  saveFile(bytes, filename, 'application/zip');
  setStatus(`Saved ${filename}: unzip it in a nanoGPT checkout; its README.md has the commands to sample and train on.`);
}

function loaded({ settings, history, uniformLoss, vocabSize, step, merges, lastSample, textProblem, restored, task, milestones }) {
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
  const what = restored ? `${restored.restored ? 'Restored' : 'Opened'} run '${restored.name}'` : 'Loaded a model';
  const sample = task ? 'try it on problems' : 'sample';
  const next = textProblem ? 'Sample from it, or fit the text to train it.'
    : phase === 'paused' ? `Resume to keep training, or ${sample}.` : `${task ? 'Try it on problems' : 'Sample from it'}, or ${TRAIN_ON}.`;
  setPhase(phase, `${what} at step ${count(step)}. ${next}`);
}

export function initCheckpoints() {
  ui.save.addEventListener('click', () => send({ type: 'save' }));
  ui.exportNanogpt.addEventListener('click', () => { showError(''); send({ type: 'export-nanogpt' }); });
  on('exported', exported);
  on('error:export-nanogpt', ({ message }) => showError(`Not exported for nanoGPT: ${message}.`));
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
