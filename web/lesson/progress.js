// Where the learner is in a lesson, kept in this browser so a reload comes back to the same step:
// the lesson (a bundled one's id, or a teacher's whole text), the step, and the steps whose waits
// were met; and whether the first visit's offer was answered.
const KEY = 'gpt-playground-lesson';
const OFFERED = 'gpt-playground-lesson-offered';

/** `{ id?, text?, step, met }` or null. */
export function savedProgress() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY));
    return saved && Number.isInteger(saved.step) && Array.isArray(saved.met) ? saved : null;
  } catch {
    return null; // storage off, or not ours: start afresh
  }
}

export function saveProgress(progress) {
  try {
    if (progress) localStorage.setItem(KEY, JSON.stringify(progress));
    else localStorage.removeItem(KEY);
  } catch {
    // storage full or off: the lesson goes on, only a reload forgets the step
  }
}

/** Whether the learner answered the first visit's offer (or storage is off: never ask again and again). */
export function offerAnswered() {
  try {
    return localStorage.getItem(OFFERED) !== null;
  } catch {
    return true;
  }
}

export function answerOffer() {
  try {
    localStorage.setItem(OFFERED, '1');
  } catch {
    // storage off: the offer is hidden for this visit
  }
}
