// The lesson panel: a guided path beside the page (web/lesson/ reads, checks and renders a
// lesson). It shows one step at a time: its text and questions, what it sets up, opens and points
// at, and what it waits for before Next. Back, Next and Leave never touch the run, and where the
// learner is survives a reload. Lessons start from lesson-menu.js.
import { languageInUse, list, t } from './i18n.js';
import { clauses, sentences } from './format.js';
import { switchLanguage } from './language-menu.js';
import { needsTraining, parseLesson } from './lesson/parse.js';
import { renderBlocks, renderSpans } from './lesson/render.js';
import { lessonLink } from './lesson/link.js';
import { openTarget, pointAt, targetProblem, unmark } from './lesson/targets.js';
import { applySetup, checkSetup, whyAsk } from './lesson/setup.js';
import { describeWait, initWaits, isMet, mark, startClock, stopClock, trainedSince } from './lesson/waits.js';
import { bundledLesson } from './lesson/bundled.js';
import { savedProgress, saveProgress } from './lesson/progress.js';
import { state } from './phase.js';

const $ = (id) => document.getElementById(id);
const ui = {
  panel: $('lesson'), title: $('lesson-title'), fold: $('lesson-fold'), body: $('lesson-body'), leave: $('lesson-leave'),
  where: $('lesson-where'), stepTitle: $('lesson-step-title'), text: $('lesson-text'), asks: $('lesson-asks'), wait: $('lesson-wait'),
  note: $('lesson-note'), problems: $('lesson-problems'), problemsTitle: $('lesson-problems-title'), problemsList: $('lesson-problems-list'),
  back: $('lesson-back'), show: $('lesson-show'), setup: $('lesson-setup'), next: $('lesson-next'), share: $('lesson-share'), shareStatus: $('lesson-share-status'),
  menu: $('lessons-button'), offer: $('lesson-offer'), notice: $('lesson-notice'),
};

let lesson = null; // { id (bundled) or null, text, title, steps, problems }
let at = 0; // the step shown
let reached = 0; // the furthest step entered: a step's set-up applies only the first time
let met = []; // per step, the training seconds its waits took (0 when it has none), once met
let from = null; // where the step started (waits.js mark)
let waiting = null; // the step whose set-up waits for the run training now to pause
const TRAINING = ['creating', 'training', 'pausing'];

/** Says why a lesson was not opened, or that one finished, under the page's title. */
export const say = (message) => { ui.notice.textContent = message; };

/** Whether a lesson is open. */
export const lessonOpen = () => lesson !== null;

/** A lesson read and checked against this page: each directive it cannot follow is named by line and dropped. */
function readLesson(text) {
  const { title, intro, steps, problems } = parseLesson(text);
  const found = [...problems];
  const refuse = (d, what, problem) => found.push({ line: d.line, message: t('lesson.refused', { directive: d.name, what, problem }) });
  for (const step of steps) {
    step.directives = step.directives.filter((d) => {
      const name = d.name === 'wait' && d.what === 'open' ? d.value : d.target;
      const problem = name ? targetProblem(d.name === 'point' ? 'point' : 'open', name) : '';
      if (problem) refuse(d, name, problem);
      if (d.name === 'setup') {
        const [values, skipped] = checkSetup(d.values);
        d.values = values;
        found.push(...skipped.map((message) => ({ line: d.line, message: `@setup ${message}` })));
      }
      return !problem;
    });
  }
  return { title, intro, steps, problems: found.sort((a, b) => a.line - b.line) };
}

const lineOf = ({ line, message }) => (line ? t('lesson.line', { line, message }) : message);
const directives = (name) => lesson.steps[at].directives.filter((d) => d.name === name);

/** Opens `text` as the lesson (bundled `id`, or null for a teacher's), at `resume`'s step or the first. */
async function startLesson(text, id, resume = null) {
  const read = readLesson(text);
  if (read.steps.length === 0) throw new Error(t('lesson.no-steps', { problems: clauses(read.problems.map(lineOf)) }));
  if (read.lang && read.lang !== languageInUse()) {
    // The page reloads in the lesson's language, and comes back to it where it was.
    saveProgress({ id: id ?? undefined, text: id ? undefined : text, step: resume?.step ?? 0, reached: resume?.reached ?? -1, met: resume?.met ?? [] });
    await switchLanguage(read.lang);
    return;
  }
  lesson = { ...read, id, text };
  met = resume?.met ?? [];
  reached = resume ? resume.reached ?? resume.step : -1;
  ui.title.textContent = lesson.title;
  ui.title.title = lesson.title; // the bar shows three lines of a long one
  ui.shareStatus.textContent = '';
  ui.problems.hidden = lesson.problems.length === 0;
  ui.problemsTitle.textContent = t('lesson.problems-title', { n: lesson.problems.length });
  ui.problemsList.replaceChildren(...lesson.problems.map((p) => Object.assign(document.createElement('li'), { textContent: lineOf(p) })));
  ui.problems.open = !resume && lesson.problems.length > 0;
  ui.panel.hidden = false;
  ui.offer.hidden = true;
  say('');
  document.body.classList.add('lesson-open');
  fold(false);
  startClock();
  await enter(resume ? Math.min(resume.step, lesson.steps.length - 1) : 0, !resume);
}

/** Shows step `index`; `moved`: the learner moved here (not a reload), so it sets up and points. */
async function enter(index, moved) {
  at = index;
  from = null; // until the step is set up, nothing is judged
  const step = lesson.steps[at];
  unmark();
  ui.where.textContent = t('lesson.where', { step: at + 1, steps: lesson.steps.length });
  ui.stepTitle.textContent = step.title;
  ui.text.replaceChildren(...renderBlocks(step.blocks));
  ui.asks.replaceChildren(...directives('ask').map((d) => {
    const li = document.createElement('li');
    li.append(...renderSpans([{ type: 'strong', text: t('lesson.question') }, { type: 'text', text: d.text }]));
    return li;
  }));
  ui.note.textContent = '';
  ui.setup.hidden = directives('setup').length === 0;
  ui.show.hidden = directives('point').length + directives('open').length === 0;
  waiting = null;
  if (moved && at > reached) await setUp();
  reached = Math.max(reached, at);
  save();
  directives('open').forEach((d) => openTarget(d.target));
  from = mark();
  if (moved) {
    point(false);
    ui.stepTitle.focus({ preventScroll: true }); // a screen reader reads the new step
  }
  update();
}

/**
 * Applies the step's set-ups; one past every preset's size asks first. While a run trains, the
 * form it was started from stays as it is: the set-up waits until the run is paused or done.
 */
async function setUp() {
  if (directives('setup').length && TRAINING.includes(state.phase)) {
    waiting = at;
    ui.note.textContent = t('lesson.setup-waits');
    return;
  }
  for (const { values } of directives('setup')) {
    const why = whyAsk(values);
    if (why && !confirm(why)) {
      ui.note.textContent = t('lesson.setup-refused');
      continue;
    }
    await applySetup(values);
  }
}

/** Marks what the step points at (or else what it opens), and with `focus` moves the keyboard there. */
function point(focus) {
  const points = directives('point');
  const names = (points.length ? points : directives('open')).map((d) => d.target);
  const problems = pointAt(names, { focus });
  if (problems.length) ui.note.textContent = sentences(problems.map((text) => t('common.sentence', { text })));
}

/** Judges the step's waits, saves progress and offers Next once they are met (or overdue). */
function update() {
  if (!lesson || !from) return;
  if (waiting === at && !TRAINING.includes(state.phase)) {
    waiting = null;
    ui.note.textContent = '';
    setUp();
  }
  const waits = directives('wait');
  const pending = waits.filter((w) => !isMet(w, from));
  const seconds = Math.round(trainedSince(from));
  if (met[at] == null && pending.length === 0) {
    met[at] = waits.some(needsTraining) ? seconds : 0;
    save();
  }
  const done = met[at] != null;
  const overdue = pending.find((w) => needsTraining(w) && w.within !== null && seconds > w.within);
  ui.next.disabled = !done && !overdue;
  ui.next.textContent = at === lesson.steps.length - 1 ? t('lesson.finish') : t('lesson.next');
  ui.back.disabled = at === 0;
  ui.panel.dataset.met = String(done);
  ui.wait.textContent = waitText(waits, pending, done, overdue, seconds);
}

/** Keeps where the learner is for a reload: the lesson (a bundled one by its id), the step, what was met. */
const save = () => saveProgress({ id: lesson.id ?? undefined, text: lesson.id ? undefined : lesson.text, step: at, reached, met });

function waitText(waits, pending, done, overdue, seconds) {
  if (waits.length === 0) return '';
  if (done) return met[at] ? t('lesson.done-after', { seconds: met[at] }) : t('lesson.done');
  const trains = pending.some(needsTraining);
  const within = Math.max(...pending.map((w) => w.within ?? 0));
  const parts = [t('lesson.waits', { what: list(pending.map(describeWait)) })];
  if (trains && within) parts.push(t('lesson.clock', { within, seconds }));
  if (trains && !['creating', 'training'].includes(state.phase)) parts.push(t('lesson.press-train'));
  if (overdue) parts.push(t('lesson.late'));
  return sentences(parts);
}

function leave(message = '') {
  lesson = null;
  unmark();
  stopClock();
  saveProgress(null);
  ui.panel.hidden = true;
  document.body.classList.remove('lesson-open');
  say(message);
  ui.menu.focus();
}

function fold(folded) {
  ui.body.hidden = folded;
  ui.fold.textContent = folded ? t('lesson.show') : t('lesson.hide');
  ui.fold.setAttribute('aria-expanded', String(!folded));
  ui.panel.classList.toggle('folded', folded);
}

async function share() {
  const link = await lessonLink(lesson.text, location.href, lesson.lang ?? languageInUse());
  try {
    await navigator.clipboard.writeText(link);
    ui.shareStatus.textContent = t('lesson.copied');
  } catch {
    ui.shareStatus.textContent = t('link.copy-by-hand', { address: link });
  }
}

/** Starts a lesson from the menu, a file, the offer or a link, saying why if it cannot. */
export async function beginLesson(text, id) {
  try {
    await startLesson(text, id);
  } catch (e) {
    say(t('lesson.not-opened', { reason: e.message }));
  }
}

/** Wires the panel's buttons and its waits (lesson-menu.js opens lessons). */
export function initLessonPanel() {
  initWaits(update);
  ui.back.addEventListener('click', () => enter(at - 1, true));
  ui.next.addEventListener('click', () => (at === lesson.steps.length - 1
    ? leave(t('lesson.finished', { title: lesson.title })) : enter(at + 1, true)));
  ui.show.addEventListener('click', () => point(true));
  ui.setup.addEventListener('click', async () => { ui.note.textContent = ''; await setUp(); update(); });
  ui.leave.addEventListener('click', () => leave());
  ui.fold.addEventListener('click', () => fold(!ui.body.hidden));
  ui.share.addEventListener('click', share);
}

/** Brings back the lesson in progress before a reload, at its step. */
export async function resumeLesson() {
  const saved = savedProgress();
  if (!saved) return;
  try {
    const text = saved.id ? (await bundledLesson(saved.id))?.text : saved.text;
    if (text) await startLesson(text, saved.id ?? null, saved);
  } catch (e) {
    say(t('lesson.not-reopened', { reason: e.message }));
  }
}
