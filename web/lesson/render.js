// A lesson's blocks (lesson/parse.js) as elements, built with createElement and textContent only:
// no text of a lesson is ever read as HTML, and the only attribute it sets is a link's http(s)
// address (checked again here), opened in a new tab with no opener.
import { safeUrl } from './parse.js';

/** Elements for `blocks`: paragraphs, headings, lists and code blocks. */
export function renderBlocks(blocks) {
  return blocks.map((block) => {
    if (block.type === 'code') {
      const pre = document.createElement('pre');
      const code = document.createElement('code');
      code.textContent = block.text;
      pre.append(code);
      return pre;
    }
    if (block.type === 'list') {
      const list = document.createElement(block.ordered ? 'ol' : 'ul');
      list.append(...block.items.map((item) => {
        const li = document.createElement('li');
        li.append(...renderSpans(item));
        return li;
      }));
      return list;
    }
    const el = document.createElement(block.type === 'heading' ? 'h4' : 'p');
    el.append(...renderSpans(block.spans));
    return el;
  });
}

/** Inline spans as text, <code>, <strong>, <em> and links. */
export function renderSpans(spans) {
  return spans.map((span) => {
    if (span.type === 'text') return document.createTextNode(span.text);
    if (span.type === 'link' && safeUrl(span.href)) {
      const a = document.createElement('a');
      a.href = new URL(span.href).href;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      a.textContent = span.text;
      return a;
    }
    const el = document.createElement({ code: 'code', strong: 'strong', em: 'em' }[span.type] ?? 'span');
    el.textContent = span.text;
    return el;
  });
}
