// A lesson's text read into plain data, with no DOM and nothing run: a lesson is untrusted (a link
// from anyone carries one), so its text becomes only headings, paragraphs of text spans (plain,
// emphasis, strong, code, and links to http(s) addresses), lists and code blocks, and directives
// from a fixed list, each checked. Whatever is not one of those stays text. A line that cannot be
// read is named in `problems`, and the rest of the lesson still works.
//
// The format: `# Title` and a few lines on what the lesson is about, then steps, each `## Step
// title` followed by text and directives, one per line:
//   @setup corpus=names preset=tiny max_iters=300      the form's settings (a learner could set them)
//   @point train                                        highlight a part of the page and scroll to it
//   @open walk                                          open a section or a view
//   @wait step>=300 within=60                           offer Next only once the run gets there
//   @ask What happened to the loss?                     a question to answer before going on
// and, before the first step, `@lang es`: the language the lesson is written in (the page opens in it).
import { count, LANGUAGES, matchLanguage, t } from '../i18n.js';

/** The directives a lesson may use. */
export const DIRECTIVES = ['setup', 'point', 'open', 'wait', 'ask'];
/** The largest lesson the page reads (characters), as a file or from a link. */
export const MAX_LESSON = 20_000;
/** Waits: a name, and whether it compares a number (`step>=300`). */
export const WAITS = {
  step: 'number', accuracy: 'number', loss: 'number',
  induction: 'flag', memorised: 'flag', generalised: 'flag', finished: 'flag', sampled: 'flag', diverged: 'flag', walked: 'flag',
  toy: 'flag', autoencoder: 'flag', circuit: 'flag', graph: 'flag', turn: 'flag', llc: 'flag', open: 'name',
};
/** Whether `wait` needs the GPT to train (and so has a time the training clock counts). */
export const needsTraining = ({ what }) => !['sampled', 'walked', 'toy', 'autoencoder', 'circuit', 'graph', 'llc', 'open'].includes(what);

/** A part of the page, as directives name it: `train`, `learning_rate`, `walk-params`. */
const TARGET = /^[a-z][a-z0-9_-]*$/;

/**
 * Reads `text`: `{ title, lang?, intro, steps: [{ title, blocks, directives }], problems: [{ line,
 * message }] }`, `intro` being the blocks before the first step.
 */
export function parseLesson(text) {
  const problems = [];
  const lesson = { title: '', intro: [], steps: [], problems };
  if (typeof text !== 'string' || text.length === 0) {
    problems.push({ line: 0, message: t('lesson.empty') });
    return lesson;
  }
  if (text.length > MAX_LESSON) {
    problems.push({ line: 0, message: t('lesson.too-long', { length: count(text.length), max: count(MAX_LESSON) }) });
    return lesson;
  }
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let step = null;
  let paragraph = null;
  let list = null;
  let code = null;
  const blocks = () => step?.blocks ?? lesson.intro;
  const close = () => { paragraph = null; list = null; };
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (code) {
      if (/^\s*```/.test(raw)) code = null;
      else code.text += (code.text ? '\n' : '') + raw;
      return;
    }
    if (/^\s*```/.test(raw)) {
      close();
      code = { type: 'code', text: '' };
      blocks().push(code);
      return;
    }
    const heading = raw.match(/^(#{1,3})\s+(.*)$/);
    if (heading) {
      close();
      const [, marks, title] = heading;
      if (marks === '#' && !lesson.title) lesson.title = title.trim();
      else if (marks === '##') {
        step = { title: title.trim(), blocks: [], directives: [] };
        lesson.steps.push(step);
      } else blocks().push({ type: 'heading', spans: spans(title.trim()) });
      return;
    }
    const directive = raw.match(/^@(\S+)\s*(.*)$/);
    if (directive) {
      close();
      if (directive[1] === 'lang') {
        const read = readLanguage(directive[2].trim(), step);
        if (read.problem) problems.push({ line, message: read.problem });
        else lesson.lang = read.lang;
        return;
      }
      const read = step ? readDirective(directive[1], directive[2].trim()) : { problem: t('lesson.directive-outside') };
      if (read.problem) problems.push({ line, message: read.problem });
      else step.directives.push({ ...read, line });
      return;
    }
    if (/^\s*$/.test(raw)) {
      close();
      return;
    }
    const item = raw.match(/^\s*(?:[-*]|\d+\.)\s+(.*)$/);
    if (item) {
      paragraph = null;
      if (!list) {
        list = { type: 'list', ordered: /^\s*\d/.test(raw), items: [] };
        blocks().push(list);
      }
      list.items.push(spans(item[1]));
      return;
    }
    if (!paragraph) {
      list = null;
      paragraph = { type: 'paragraph', spans: [] };
      blocks().push(paragraph);
    } else paragraph.spans.push({ type: 'text', text: ' ' });
    paragraph.spans.push(...spans(raw.trim()));
  });
  if (!lesson.title) lesson.title = lesson.steps[0]?.title || t('lesson.untitled');
  if (lesson.steps.length === 0) problems.push({ line: 0, message: t('lesson.stepless') });
  return lesson;
}

/** `@lang code`, before the first step: `{ lang }` (a language of the page), or `{ problem }`. */
function readLanguage(tag, step) {
  if (step) return { problem: t('lesson.lang-place') };
  const lang = matchLanguage(tag);
  return lang ? { lang } : { problem: t('lesson.lang-unknown', { tag, known: LANGUAGES.map((l) => l.code).join(', ') }) };
}

/** A directive's parts, or `{ problem }` saying what is wrong with it. */
function readDirective(name, rest) {
  if (!DIRECTIVES.includes(name)) return { problem: t('lesson.unknown-directive', { name, known: DIRECTIVES.map((d) => `@${d}`).join(', ') }) };
  if (name === 'ask') return rest ? { name, text: rest } : { problem: t('lesson.ask-needs') };
  if (name === 'point' || name === 'open') {
    return TARGET.test(rest) ? { name, target: rest } : { problem: t('lesson.target-needs', { name }) };
  }
  if (name === 'wait') return readWait(rest);
  const pairs = pairsOf(rest);
  if (pairs.problem) return { problem: `@setup: ${pairs.problem}` };
  return pairs.length ? { name, values: Object.fromEntries(pairs) } : { problem: t('lesson.setup-needs') };
}

/** `key=value` pairs, values quoted with "..." where they hold spaces. */
function pairsOf(rest) {
  const pairs = [];
  const pattern = /\s*([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S+)/y;
  let at = 0;
  while (at < rest.length) {
    pattern.lastIndex = at;
    const m = pattern.exec(rest);
    if (!m) return { problem: t('lesson.setting-unreadable', { text: rest.slice(at).trim() }) };
    pairs.push([m[1], m[3] ?? m[2]]);
    at = pattern.lastIndex;
    if (/^\s*$/.test(rest.slice(at))) break;
  }
  return pairs;
}

/** `@wait condition [within=seconds]`. */
function readWait(rest) {
  const [condition, ...more] = rest.split(/\s+/).filter(Boolean);
  const within = more.map((m) => m.match(/^within=(\d+)$/)).find(Boolean);
  if (more.length && !within) return { problem: t('lesson.wait-time', { text: more.join(' ') }) };
  const m = (condition ?? '').match(/^([a-z]+)(?:(>=|<=|=)([^\s]+))?$/);
  const kind = m && WAITS[m[1]];
  const names = Object.keys(WAITS).join(', ');
  if (!kind) return { problem: t('lesson.wait-unknown', { condition: condition ?? '', names }) };
  const [, what, op, value] = m;
  if (kind === 'flag' && op) return { problem: t('lesson.wait-flag', { what }) };
  if (kind === 'number' && (!op || op === '=' || !Number.isFinite(Number(value)))) return { problem: t('lesson.wait-number', { what, example: what === 'step' ? 300 : 0.9 }) };
  if (what === 'accuracy' && !(Number(value) >= 0 && Number(value) <= 1)) return { problem: t('lesson.wait-fraction') };
  if (kind === 'name' && (op !== '=' || !TARGET.test(value))) return { problem: t('lesson.wait-open') };
  return { name: 'wait', what, op: op ?? null, value: kind === 'number' ? Number(value) : value ?? null, within: within ? Number(within[1]) : null };
}

/** A line's inline text as spans: `code`, **strong**, *emphasis*, [links](https://...), text. */
export function spans(text) {
  const out = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > at) out.push({ type: 'text', text: text.slice(at, m.index) });
    if (m[1] !== undefined) out.push({ type: 'code', text: m[1] });
    else if (m[2] !== undefined) out.push({ type: 'strong', text: m[2] });
    else if (m[3] !== undefined) out.push({ type: 'em', text: m[3] });
    else if (safeUrl(m[5])) out.push({ type: 'link', text: m[4], href: m[5] });
    else out.push({ type: 'text', text: m[0] }); // a link to anything but http(s) stays text
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ type: 'text', text: text.slice(at) });
  return out;
}

/** Whether `href` is an absolute http(s) address (nothing else becomes a link). */
export function safeUrl(href) {
  try {
    const url = new URL(href);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.href.length < 2000;
  } catch {
    return false;
  }
}
