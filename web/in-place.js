// Refreshing a figure without replacing what a person is pressing or focusing: where the figure
// already shows elements of the new one's shape, their text, style and named attributes are
// updated in place. A refresh that replaced them between a press and its release would lose the
// click, and one under the keyboard's focus would drop it to the page's start.

/**
 * Shows `fresh` (elements) in `holder`, updating the elements already there in place when they
 * have the same shape; their listeners stay, so a fresh element's must do what the old one's did.
 */
export function showInPlace(holder, fresh, attributes = ['aria-label', 'aria-pressed', 'title']) {
  const old = [...holder.children];
  if (old.length !== fresh.length || !old.every((node, i) => sameShape(node, fresh[i]))) {
    holder.replaceChildren(...fresh);
    return;
  }
  old.forEach((node, i) => copyInto(node, fresh[i], attributes));
}

/** Whether `a` and `b` are the same tags, with children of the same kinds, all the way down. */
function sameShape(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName || a.childNodes.length !== b.childNodes.length) return false;
  return [...a.childNodes].every((child, i) => sameShape(child, b.childNodes[i]));
}

/** Gives `old` the text, class, style and `attributes` of `next` (of the same shape). */
function copyInto(old, next, attributes) {
  if (old.nodeType === Node.TEXT_NODE) {
    if (old.data !== next.data) old.data = next.data;
    return;
  }
  if (old.nodeType !== Node.ELEMENT_NODE) return;
  if (old.className !== next.className) old.className = next.className;
  if (old.style.cssText !== next.style.cssText) old.style.cssText = next.style.cssText;
  for (const name of attributes) {
    if (next.hasAttribute(name)) old.setAttribute(name, next.getAttribute(name));
    else old.removeAttribute(name);
  }
  old.childNodes.forEach((child, i) => copyInto(child, next.childNodes[i], attributes));
}
