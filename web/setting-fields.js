// Form controls made from the engine's description of a setting (a task's or an optimiser's own:
// `Field` in crates/gpt/src/fields.rs), so that a new task or optimiser brings its fields with it.
import { coreText } from './i18n.js';

/** The label's text of a form control, without the value, for messages. */
export const labelOf = (el) => [...(el.closest('label')?.childNodes ?? [])]
  .filter((n) => n.nodeType === Node.TEXT_NODE || n.dataset?.i18n !== undefined).map((n) => n.textContent).join(' ').trim() || el.name;

/** A `<label>` holding a control for `field`, tied to the form `formId`. */
function settingControl(field, formId) {
  const label = document.createElement('label');
  let control;
  if (field.accepts.type === 'choice') {
    control = document.createElement('select');
    control.append(...field.accepts.options.map(([value, text]) => new Option(coreText(text), value)));
  } else {
    control = document.createElement('input');
    control.type = 'number';
    control.step = field.accepts.type === 'count' ? '1' : 'any';
  }
  control.name = field.name;
  control.value = String(field.accepts.default);
  control.setAttribute('form', formId);
  label.append(`${coreText(field.label)} `, control);
  describeControl(control, field);
  return label;
}

/** Sets `control`'s limits and tooltip to `field`'s (a setting two owners describe differently). */
function describeControl(control, field) {
  control.title = coreText(field.help);
  const { accepts } = field;
  if (accepts.type === 'count') {
    control.min = String(accepts.min);
    control.max = String(accepts.max);
  } else if (accepts.type === 'number') {
    control.min = String(accepts.above);
    control.max = String(accepts.below);
  }
}

/**
 * Puts one control for each setting `owners` describe (each `{ name, fields }`) in `container`,
 * once per name, and returns a function that shows, enables and describes those of the owner
 * called `name` (none: hides them all).
 */
export function ownedFields(container, owners, formId) {
  const controls = new Map();
  for (const owner of owners) {
    for (const field of owner.fields) {
      if (!controls.has(field.name)) controls.set(field.name, settingControl(field, formId));
    }
  }
  container.append(...controls.values());
  return (name) => {
    const owner = owners.find((o) => o.name === name);
    for (const [fieldName, label] of controls) {
      const field = owner?.fields.find((f) => f.name === fieldName);
      label.hidden = !field;
      const control = label.querySelector('input, select');
      control.disabled = !field;
      if (field) describeControl(control, field);
    }
  };
}

/** The names of every setting `owners` describe. */
export const settingNames = (owners) => new Set(owners.flatMap((o) => o.fields.map((f) => f.name)));
