// "Inside the model": asks the worker for the views while the section is open (it sends them at
// each evaluation, and on request), and hands each view its part.
import { on, send } from './engine.js';
import { EmbeddingsView } from './views/embeddings-view.js';
import { HeadsView } from './views/heads-view.js';
import { LensView, TemperatureView } from './views/lens-view.js';
import { MlpView } from './views/mlp-view.js';
import { PositionsView } from './views/positions-view.js';
import { ResidualView } from './views/residual-view.js';
import { SurpriseView } from './views/surprise-view.js';
import { TimelapseView } from './views/timelapse-view.js';

const $ = (id) => document.getElementById(id);
const ui = { details: $('inside'), probe: $('probe'), status: $('inside-status'), error: $('inside-error') };
const tooltip = $('inside-tooltip');
const views = [
  new HeadsView($('heads-view'), $('heads-score')), new EmbeddingsView($('embeddings-view')), new PositionsView($('positions-view')),
  new ResidualView($('residual-view')), new MlpView($('mlp-view')), new TemperatureView($('temperature-view')), new LensView($('lens-view')),
];
const surprise = new SurpriseView({ text: $('surprise-text'), canvas: $('position-loss-view'), tooltip });
const timelapse = new TimelapseView({
  grid: $('timelapse-grid'), slider: $('timelapse-slider'), output: $('timelapse-step'),
  dialog: { dialog: $('attention-dialog'), dialogTitle: $('attention-dialog-title'), large: $('attention-large'), readout: $('attention-large-readout'), tooltip },
});

/** Tells the worker whether to send the views, and for which probe text. */
function request() {
  send({ type: 'inside', open: ui.details.open, probe: ui.probe.value });
}

let probeTimer = 0;
let uniformLoss = () => 1;

/** Wires the section; `uniform()` is the current model's uniform-guess loss. */
export function initInside(uniform) {
  uniformLoss = uniform;
  ui.details.addEventListener('toggle', request);
  ui.probe.addEventListener('input', () => {
    clearTimeout(probeTimer);
    probeTimer = setTimeout(request, 250);
  });
  on('inside', ({ inside, timelapse: lapse }) => {
    ui.error.textContent = '';
    ui.status.textContent = `At step ${inside.step}; the views refresh at each evaluation.`;
    views.forEach((view) => view.update(inside));
    surprise.update(inside, uniformLoss());
    if (lapse) timelapse.update(lapse);
  });
  on('error:inside', ({ message }) => { ui.error.textContent = message; });
}

/** Puts back a saved run's probe text. */
export function setProbe(text) {
  ui.probe.value = text;
  request();
}

/** Forgets the views of a model that is gone. */
export function clearInside() {
  timelapse.clear();
  ui.status.textContent = 'Train or load a model to look inside it.';
}
