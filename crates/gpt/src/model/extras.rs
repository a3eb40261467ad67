//! What a forward pass does besides computing: training-mode randomness (dropout), edits that test
//! what a part of the model does (`edits.rs`), and, when the caller wants to look inside, the
//! [`Hooks`] that name each value it computed, by TransformerLens's hook names.

use super::edits::Edit;
use super::layers::Dropout;
use super::rewire::Rewire;
use crate::autograd::{Graph, Var};

/// What a forward pass does besides computing: training-mode randomness, edits, and hooks when
/// the caller wants to look inside.
pub(crate) struct Extras<'a> {
    pub(crate) dropout: Option<Dropout<'a>>,
    pub(crate) edits: &'a [Edit],
    pub(crate) hooks: Option<&'a mut Hooks>,
    /// What each node reads and writes, when the pass is one of a circuit's (`rewire.rs`).
    pub(crate) rewire: Option<&'a mut dyn Rewire>,
}

impl<'a> Extras<'a> {
    /// An evaluation-mode pass (no dropout) with `edits`, hooked when `hooks` are given.
    pub(crate) fn eval(edits: &'a [Edit], hooks: Option<&'a mut Hooks>) -> Self {
        Extras { dropout: None, edits, hooks, rewire: None }
    }

    /// Names `v` `name()` (`blocks.0.attn.hook_z`), when the pass is hooked.
    pub(crate) fn hook(&mut self, name: impl FnOnce() -> String, v: Var) {
        if let Some(hooks) = self.hooks.as_deref_mut() {
            hooks.vars.push((name(), v));
        }
    }
}

/// Which of a pass's values each hook point holds, by TransformerLens's names
/// (`hook_embed`, `blocks.{l}.hook_resid_pre`, `blocks.{l}.attn.hook_z`, …), and every layer's
/// attention probabilities (`hook_pattern`, which the fused attention kernel writes out).
#[derive(Debug, Default)]
pub(crate) struct Hooks {
    pub(crate) vars: Vec<(String, Var)>,
    /// Every layer's attention probabilities, (L, nh, T, T) per row of the batch.
    pub(crate) pattern: Vec<f32>,
}

impl Hooks {
    /// The value named `name`.
    pub(crate) fn var(&self, name: &str) -> Option<Var> {
        self.vars.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// The value named `name`, flat, as the pass left it in `g`.
    pub(crate) fn value(&self, g: &Graph, name: &str) -> Vec<f32> {
        self.var(name).map_or_else(Vec::new, |v| flat(g, v))
    }
}

/// `v`'s value, flat.
pub(crate) fn flat(g: &Graph, v: Var) -> Vec<f32> {
    g.value(v).as_slice().expect("recorded values are in standard layout").to_vec()
}

/// The stream entering the final norm (after any edit there): the last block's output, as the
/// pass used it.
pub(crate) const FINAL_STREAM: &str = "ln_final.hook_in";

/// One sequence's pass, layer by layer. Rows are positions, heads side by side in channels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Positions traced.
    pub t: usize,
    /// Rows traced (a batch's sequences).
    pub b: usize,
    /// The residual stream entering each block, then leaving the last: (L + 1) × (T, C).
    pub residual: Vec<Vec<f32>>,
    /// Each layer's heads' outputs before the output projection, side by side: L × (T, C).
    pub heads: Vec<Vec<f32>>,
    /// What each block's attention adds to the stream: L × (T, C).
    pub attn: Vec<Vec<f32>>,
    /// What each block's MLP adds: L × (T, C).
    pub mlp: Vec<Vec<f32>>,
    /// Each MLP's inputs to its nonlinearity: L × (T, 4C).
    pub pre_activations: Vec<Vec<f32>>,
    /// Every layer's attention probabilities, (L, nh, T, T).
    pub attention: Vec<f32>,
    /// The logits (T, V).
    pub logits: Vec<f32>,
}

impl Trace {
    /// The trace of a hooked pass of `layers` blocks that left its values in `g`.
    pub(crate) fn from_hooks(g: &Graph, hooks: Hooks, layers: usize, (b, t): (usize, usize), logits: Var) -> Trace {
        let each = |hook: &str| -> Vec<Vec<f32>> {
            (0..layers).map(|l| hooks.value(g, &format!("blocks.{l}.{hook}"))).collect()
        };
        let mut residual = each("hook_resid_pre");
        residual.push(hooks.value(g, FINAL_STREAM));
        Trace {
            t,
            b,
            residual,
            heads: each("attn.hook_z"),
            attn: each("hook_attn_out"),
            mlp: each("hook_mlp_out"),
            pre_activations: each("mlp.hook_pre"),
            logits: flat(g, logits),
            attention: hooks.pattern,
        }
    }
}
