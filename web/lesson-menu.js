// Where lessons start: the Lessons menu (the bundled lessons, and a teacher's file), the first
// visit's offer, and a link that carries a lesson (lesson-panel.js shows it).
import { t } from './i18n.js';
import { MAX_LESSON } from './lesson/parse.js';
import { renderBlocks } from './lesson/render.js';
import { carriesLesson, lessonFromHash } from './lesson/link.js';
import { bundledLessons } from './lesson/bundled.js';
import { answerOffer, offerAnswered } from './lesson/progress.js';
import { beginLesson, lessonOpen, resumeLesson, say } from './lesson-panel.js';
import { on } from './engine.js';

const $ = (id) => document.getElementById(id);
const ui = {
  menu: $('lessons-button'), dialog: $('lessons-dialog'), list: $('lessons-list'), file: $('lesson-file'), menuError: $('lessons-error'),
  offer: $('lesson-offer'), offerText: $('lesson-offer-text'), offerStart: $('lesson-offer-start'), offerLater: $('lesson-offer-later'),
};

/** Opens the menu once its list is filled, so the keyboard starts on the first lesson. */
async function showMenu() {
  ui.menuError.textContent = '';
  try {
    const bundled = await bundledLessons();
    ui.list.replaceChildren(...bundled.map(({ id, text, lesson: read }) => {
      const li = document.createElement('li');
      const start = document.createElement('button');
      start.type = 'button';
      start.textContent = read.title;
      start.addEventListener('click', () => {
        ui.dialog.close(); // first: closing gives focus back to the menu button, and the lesson moves it on
        beginLesson(text, id);
      });
      li.append(start, ...renderBlocks(read.intro.slice(0, 1)));
      return li;
    }));
  } catch (e) {
    ui.menuError.textContent = t('lessons.load-failed', { reason: e.message });
  }
  if (!ui.dialog.open) ui.dialog.showModal();
}

async function openFile() {
  const [file] = ui.file.files;
  ui.file.value = '';
  if (!file) return;
  if (file.size > 4 * MAX_LESSON) {
    ui.menuError.textContent = t('lessons.file-too-big', { file: file.name, size: file.size, max: MAX_LESSON });
    return;
  }
  const text = await file.text();
  ui.dialog.close();
  beginLesson(text, null);
}

/** On a first visit (nothing saved yet), offers the first lesson. */
async function offer() {
  if (lessonOpen() || offerAnswered()) return;
  const [first] = await bundledLessons().catch(() => []);
  if (!first || lessonOpen()) return;
  ui.offerText.textContent = t('lessons.offer', { title: first.lesson.title });
  ui.offer.hidden = false;
  const answered = () => { answerOffer(); ui.offer.hidden = true; };
  ui.offerStart.onclick = async () => { answered(); await beginLesson(first.text, first.id); };
  ui.offerLater.onclick = answered;
}

/** Opens the lesson a link's `hash` carries, or says why it cannot. */
async function openLinked(hash) {
  const linked = await lessonFromHash(hash);
  if (linked.error) say(t('lessons.link-failed', { reason: linked.error }));
  else await beginLesson(linked.text, null);
}

/**
 * Wires the menu and the offer; `hash` is the address's as the page opened: a link's lesson opens
 * at once, and otherwise the lesson in progress before a reload comes back.
 */
export function initLessonMenu(hash) {
  on('nothing-saved', offer);
  ui.menu.addEventListener('click', showMenu);
  ui.file.addEventListener('change', openFile);
  // A lesson's link pasted into this tab's address changes only the hash.
  addEventListener('hashchange', () => carriesLesson(location.hash) && openLinked(location.hash));
  return carriesLesson(hash) ? openLinked(hash) : resumeLesson();
}
