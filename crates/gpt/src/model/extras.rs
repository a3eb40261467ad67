//! What a forward pass does besides computing: training-mode randomness (dropout), edits that test
//! what a part of the model does (`edits.rs`), and, when the caller wants to look inside, a
//! [`Trace`] of what it computed.

use super::edits::Edit;
use super::layers::Dropout;
use crate::autograd::{Graph, Var};

/// What a forward pass does besides computing: training-mode randomness, edits, and a trace of
/// what it computed when the caller wants to look inside.
pub(crate) struct Extras<'a> {
    pub(crate) dropout: Option<Dropout<'a>>,
    pub(crate) edits: &'a [Edit],
    pub(crate) trace: Option<&'a mut Trace>,
}

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
    /// Keeps the value of `v`, flat.
    pub(crate) fn keep(g: &Graph, v: Var) -> Vec<f32> {
        g.value(v).as_slice().expect("recorded values are in standard layout").to_vec()
    }
}
