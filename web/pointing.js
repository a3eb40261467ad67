// Readouts that follow the pointer: a mouse shows them by hovering, a finger by touching (a tap, or
// a drag across). A mouse leaving hides them; a touch's stays until the next one, to be read.

/** Calls `show(event)` where a pointer hovers or touches `el`, and `hide()` when a mouse leaves it. */
export function onPoint(el, show, hide) {
  el.addEventListener('pointermove', show);
  el.addEventListener('pointerdown', show);
  el.addEventListener('pointerleave', (e) => { if (e.pointerType === 'mouse') hide(); });
}

/**
 * Shows `tooltip` (absolutely placed in the box `host`, a DOMRect) with `text`, its corner at the
 * screen point (x, y), moved left where it would reach past the screen's right edge.
 */
export function showTooltip(tooltip, text, host, x, y) {
  tooltip.textContent = text;
  tooltip.hidden = false;
  const room = document.documentElement.clientWidth - tooltip.offsetWidth - 4;
  tooltip.style.left = `${Math.max(4, Math.min(x, room)) - host.left}px`;
  tooltip.style.top = `${y - host.top}px`;
}
