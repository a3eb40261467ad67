// "Walk through the model": one token followed through the run's own model, every stage of the
// forward pass and of one training step, with its real numbers (crates/gpt/src/inspect/walk/).
// The worker computes it when the section is open: at once on a change here, and again at each
// evaluation while training.
import { decimal, t } from './i18n.js';
import { on, send } from './engine.js';
import { samplingSettings } from './sample-panel.js';
import { StageFigure, drawList, number, paramRows, ratesText, tokenButtons } from './walk-figures.js';
import { tokenLabel } from './format.js';

const $ = (id) => document.getElementById(id);
const ui = {
  details: $('walk'), text: $('walk-text'), position: $('walk-position'), layer: $('walk-layer'), head: $('walk-head'),
  target: $('walk-target'), status: $('walk-status'), error: $('walk-error'), tokens: $('walk-tokens'),
  forward: $('walk-forward'), draw: $('walk-draw'), drawTitle: $('walk-draw-title'), step: $('walk-step'),
  backward: $('walk-backward'), params: $('walk-params').tBodies[0], sampleForm: $('sample-form'),
};
/** Each section's stage figures, by their place, kept between refreshes. */
const figures = { forward: [], backward: [] };
let followed = null; // what the last walk followed

/** What the walk follows, as the controls say it; a control left empty takes the run's default. */
function request() {
  const whole = (el) => (el.value === '' ? null : Number(el.value));
  const [layer, head] = [whole(ui.layer), whole(ui.head)];
  return {
    text: ui.text.value,
    position: whole(ui.position),
    layer: layer !== null && head !== null ? layer : null,
    head: layer !== null && head !== null ? head : null,
    target: ui.target.value,
    ...samplingSettings(),
  };
}

/**
 * A layer or a head chosen with the other left to the run's scores: the other is set to the one
 * the walk follows now, so the choice takes effect and the controls say what is shown.
 */
function choose(event) {
  const other = event.target === ui.layer ? ui.head : ui.layer;
  if (event.target.value !== '' && other.value === '' && followed) {
    other.value = String(other === ui.layer ? followed.layer : followed.head);
  } else if (event.target.value === '') {
    other.value = '';
  }
  ask();
}

/** Tells the worker what to follow (nothing while the section is closed). */
function ask() {
  send({ type: 'walk', request: ui.details.open ? request() : null });
}

let timer = 0;
const askSoon = () => {
  clearTimeout(timer);
  timer = setTimeout(ask, 250);
};

/** A select's options: "the run's" (empty) and 1..n, keeping its choice where it still exists. */
function numbered(select, n) {
  if (select.options.length === n + 1) return;
  const kept = select.value;
  select.replaceChildren(new Option(t('walk.the-run-s-scores'), ''), ...Array.from({ length: n }, (_, i) => new Option(String(i + 1), String(i))));
  select.value = Number(kept) < n ? kept : '';
}

/** Updates `list`'s figures in `host` to `stages`, adding or dropping figures as their count changes. */
function showStages(list, host, stages) {
  while (list.length < stages.length) list.push(new StageFigure());
  list.length = stages.length;
  if (host.children.length !== list.length || list.some((f, i) => host.children[i] !== f.el)) host.replaceChildren(...list.map((f) => f.el));
  stages.forEach((stage, i) => list[i].update(stage));
}

function show({ walk }) {
  ui.error.textContent = '';
  const { followed: f, forward, draw, backward: b } = walk;
  followed = f;
  numbered(ui.layer, walk.n_layer);
  numbered(ui.head, walk.n_head);
  ui.position.max = String(f.ids.length - 1);
  ui.position.placeholder = String(f.position);
  ui.status.textContent = t('walk.status', {
    step: walk.step, text: JSON.stringify(f.text), position: f.position, token: tokenLabel(f.tokens[f.position]), layer: f.layer + 1, head: f.head + 1,
  });
  tokenButtons(ui.tokens, f.tokens, f.ids, f.position, (i) => {
    ui.position.value = String(i);
    ask();
  });
  showStages(figures.forward, ui.forward, forward.slice(1)); // the tokens are the buttons above
  const drawn = { temperature: Number(draw.temperature.toPrecision(4)), k: draw.top_k, token: tokenLabel(draw.picked.token), percent: decimal(draw.picked.prob * 100, 1) };
  ui.drawTitle.textContent = draw.top_k ? t('walk.draw-title-top-k', drawn) : t('walk.draw-title', drawn);
  drawList(ui.draw, draw);
  const clipped = b.clip_scale < 1
    ? ` ${t('walk.clipped', { clip: b.grad_clip, scale: number(b.clip_scale) })}`
    : '';
  ui.step.textContent = t('walk.step', {
    token: tokenLabel(b.target.token), position: f.position, loss: number(b.loss), prob: number(b.target.prob), rates: ratesText(b.rates),
    norm: number(b.grad_norm), after: number(b.loss_after),
  }) + clipped;
  showStages(figures.backward, ui.backward, b.stages);
  paramRows(ui.params, b.params, b.rates);
}

/** Forgets a model that is gone. */
export function clearWalk() {
  ui.status.textContent = t('walk.no-model');
  for (const host of [ui.forward, ui.backward, ui.tokens, ui.draw, ui.params]) host.replaceChildren();
  figures.forward.length = figures.backward.length = 0;
  followed = null;
  ui.step.textContent = '';
  ui.drawTitle.textContent = '';
}

export function initWalk() {
  ui.details.addEventListener('toggle', ask);
  for (const el of [ui.text, ui.position, ui.target]) el.addEventListener('input', askSoon);
  for (const el of [ui.layer, ui.head]) el.addEventListener('change', choose);
  ui.sampleForm.addEventListener('input', () => ui.details.open && askSoon());
  on('walk', show);
  on('error:walk', ({ message }) => { ui.error.textContent = message; });
  clearWalk();
}
