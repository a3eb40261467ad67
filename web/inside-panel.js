// "Inside the model": one collapsible figure per view (views/index.js lists them), built here
// from each view's module. The worker computes only the views that are open, at each evaluation
// while training and on request otherwise, and each view draws its part.
import { t } from './i18n.js';
import { on, send } from './engine.js';
import { VIEWS } from './views/index.js';

const $ = (id) => document.getElementById(id);
const ui = { details: $('inside'), probe: $('probe'), status: $('inside-status'), error: $('inside-error'), views: $('views') };
const tooltip = $('inside-tooltip');
const dialog = { dialog: $('attention-dialog'), dialogTitle: $('attention-dialog-title'), large: $('attention-large'), readout: $('attention-large-readout'), tooltip };

let uniformLoss = () => 1;
/** What the testing views ask (crates/gpt/src/inspect/look.rs, `Questions`): the part to knock out and how, and the patching pair. */
const questions = { ablate: null, fill: 'mean', clean: '', corrupted: '' };

/** A view changes its question: the worker computes the views again with it (unless `quiet`: the
 * change waits for the next refresh). */
function ask(change, { quiet = false } = {}) {
  Object.assign(questions, change);
  if (!quiet) request();
}

/** Each view: its module's instance and the `<details>` that shows it. */
const views = VIEWS.map((View) => {
  const details = document.createElement('details');
  details.className = View.wide ? 'view wide' : 'view';
  details.open = true;
  details.dataset.view = View.key;
  const summary = document.createElement('summary');
  summary.textContent = View.title;
  const figure = document.createElement('figure');
  const hint = document.createElement('p');
  hint.className = 'hint';
  hint.textContent = View.hint;
  const error = document.createElement('p');
  error.className = 'error';
  error.setAttribute('role', 'status');
  const view = new View(figure, { tooltip, dialog, uniformLoss: () => uniformLoss(), ask });
  figure.append(error, hint);
  details.append(summary, figure);
  ui.views.append(details);
  return { key: View.key, view, details, error };
});

/** Tells the worker which views to send (none while the section is closed), and for which probe text. */
function request() {
  const open = ui.details.open ? views.filter((v) => v.details.open).map((v) => v.key) : [];
  send({ type: 'inside', views: open, probe: ui.probe.value, questions });
}

let probeTimer = 0;

/** Wires the section; `uniform()` is the current model's uniform-guess loss. */
export function initInside(uniform) {
  uniformLoss = uniform;
  ui.details.addEventListener('toggle', request);
  views.forEach((v) => v.details.addEventListener('toggle', request));
  ui.probe.addEventListener('input', () => {
    clearTimeout(probeTimer);
    probeTimer = setTimeout(request, 250);
  });
  on('inside', ({ inside, timelapse: lapse, asked }) => {
    ui.error.textContent = '';
    ui.status.textContent = t('inside.at-step', { step: inside.step });
    for (const { key, view, error } of views) {
      if (!(key in inside.views)) continue;
      const data = inside.views[key];
      error.textContent = data?.error ?? ''; // a view that could not answer says why; the others still show
      if (data?.error) view.failed?.();
      else view.update(data, { inside, lapse, asked }); // `asked`: the questions this answers
    }
  });
  on('error:inside', ({ message }) => { ui.error.textContent = message; });
}

/** Puts back a saved run's probe text. */
export function setProbe(text) {
  ui.probe.value = text;
  request();
}

/** Forgets the views of a model that is gone, and what was asked of them. */
export function clearInside() {
  Object.assign(questions, { ablate: null, clean: '', corrupted: '' });
  views.forEach(({ view }) => view.clear?.());
  ui.status.textContent = t('inside.train-or-load-a');
}
