// The autoencoder's kind as a form asks for it (the Features section's and the Superposition
// section's): a select named `architecture`, and the inputs each kind reads, named as the core's
// fields (`k`, `l1_coefficient`, `l0_coefficient`) inside labels of class `sae-topk`, `sae-relu`
// or `sae-jump`, only the kind's shown.

/** The kind `form` names, in the core's terms (`sae::Architecture`). */
export function architectureOf(form) {
  const { architecture, k, l1_coefficient: l1, l0_coefficient: l0 } = form.elements;
  const kind = architecture.value;
  switch (kind) {
    case 'relu': return { kind, l1_coefficient: Number(l1.value) };
    // JumpReLU's bandwidth and Matryoshka's levels: the core's defaults.
    case 'jump_relu': return { kind, l0_coefficient: Number(l0.value) };
    default: return { kind, k: Number(k.value), aux_coefficient: 1 };
  }
}

/** Shows only the inputs the kind `form` names reads, now and whenever it changes. */
export function showKindInputs(form) {
  const show = () => {
    const kind = form.elements.architecture.value;
    form.querySelector('.sae-topk').hidden = kind === 'relu' || kind === 'jump_relu';
    form.querySelector('.sae-relu').hidden = kind !== 'relu';
    form.querySelector('.sae-jump').hidden = kind !== 'jump_relu';
  };
  form.elements.architecture.addEventListener('change', show);
  show();
}
