//! The model as a graph of nodes that write into the residual stream and read from it, at the
//! grain circuit tools (ACDC, EAP, EAP-IG) patch: the input (embeddings), each head and each MLP
//! write; each head reads the stream three times, for its query, key and value, each through its
//! own copy of the block's first norm (TransformerLens's `use_split_qkv_input`); each MLP and the
//! logits read it once. A [`Rewire`] changes what one reader sees and hears what each node wrote,
//! so that one edge (a writer's output as one reader sees it) can be patched on its own
//! (`rewired.rs` runs such passes, and takes a metric's gradient at every reader's input).

use super::edits::Edited;
use super::layers::Norm;
use crate::autograd::{Graph, Var};
use crate::ops::gemm::gemm;
use ndarray::{s, ArrayView2, ArrayViewMut2};
use serde::{Deserialize, Serialize};

/// Which of a head's three inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum HeadInput {
    Q,
    K,
    V,
}

impl HeadInput {
    pub const ALL: [HeadInput; 3] = [HeadInput::Q, HeadInput::K, HeadInput::V];

    /// Where its third of the fused q|k|v projection starts, in model widths.
    pub(super) fn index(self) -> usize {
        self as usize
    }

    /// `q`, `k` or `v`, as EAP-IG names the input.
    pub fn letter(self) -> char {
        ['q', 'k', 'v'][self.index()]
    }
}

/// Where a node reads the residual stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reader {
    Head { layer: usize, head: usize, part: HeadInput },
    Mlp { layer: usize },
    Logits,
}

impl Reader {
    /// The block it reads in; the logits read after the last (`n_layer`).
    pub fn layer(&self, n_layer: usize) -> usize {
        match *self {
            Reader::Head { layer, .. } | Reader::Mlp { layer } => layer,
            Reader::Logits => n_layer,
        }
    }
}

/// Every reader of a model of `n_layer` blocks of `n_head` heads, in EAP-IG's order: in each
/// layer every head's query, then their keys, then their values, then the MLP; the logits last.
pub fn readers(n_layer: usize, n_head: usize) -> Vec<Reader> {
    let mut all = Vec::with_capacity(n_layer * (3 * n_head + 1) + 1);
    for layer in 0..n_layer {
        for part in HeadInput::ALL {
            all.extend((0..n_head).map(|head| Reader::Head { layer, head, part }));
        }
        all.push(Reader::Mlp { layer });
    }
    all.push(Reader::Logits);
    all
}

/// Changes what readers see, and hears what nodes write, in one forward pass. Every value is a
/// batch's (B, T, C), row after row.
pub trait Rewire {
    /// The input node's output to use instead of `computed`, if any.
    fn embedding(&mut self, _computed: &[f32]) -> Option<Vec<f32>> {
        None
    }

    /// What to add to the stream before `reader` reads it, if anything.
    fn delta(&mut self, reader: Reader) -> Option<Vec<f32>>;

    /// Layer `layer`'s heads' outputs before the output projection, side by side (`hook_z`).
    fn heads(&mut self, _layer: usize, _z: &[f32]) {}

    /// Layer `layer`'s attention pattern (B, nh, T, T) to use instead of the one its queries and
    /// keys compute: circuit tracing's frozen attention. None computes it.
    fn pattern(&mut self, _layer: usize) -> Option<Vec<f32>> {
        None
    }

    /// What to add to layer `layer`'s MLP output, given what the MLP read (its normalised input):
    /// a feature's change written by its transcoder's decoder, as circuit-tracer's interventions
    /// write it into the model's own MLPs. None adds nothing.
    fn mlp_added(&mut self, _layer: usize, _input: &[f32]) -> Option<Vec<f32>> {
        None
    }

    /// Layer `layer`'s MLP output.
    fn mlp(&mut self, _layer: usize, _out: &[f32]) {}
    /// What layer `layer`'s MLP writes, in place of its own output, given what it reads (its
    /// normalised input): a transcoder's output in the replacement model. None keeps the MLP.
    fn mlp_output(&mut self, _layer: usize, _input: &[f32]) -> Option<Vec<f32>> {
        None
    }
}

/// One head input read differently: the head, its part, and the stream as it reads it,
/// normalised, a row per position.
pub(super) struct HeadRead {
    pub(super) head: usize,
    pub(super) part: HeadInput,
    pub(super) normalised: Vec<f32>,
}

/// `x` plus `delta` as a value of the pass (one that passes no gradient).
fn shifted(g: &mut Graph, x: Var, delta: &[f32]) -> Var {
    let mut out = g.ws().copy(g.value(x));
    let values = out.as_slice_mut().expect("fresh array");
    values.iter_mut().zip(delta).for_each(|(v, d)| *v += d);
    g.push(out, vec![x], Edited)
}

/// The stream `x` as `reader` reads it: with the rewire's change for it, if any.
pub(super) fn read(g: &mut Graph, x: Var, reader: Reader, rewire: Option<&mut (dyn Rewire + '_)>) -> Var {
    match rewire.and_then(|r| r.delta(reader)) {
        Some(delta) => shifted(g, x, &delta),
        None => x,
    }
}

/// The head inputs of layer `layer` the rewire changes, each normalised by `norm`.
pub(super) fn head_reads(
    g: &Graph,
    x: Var,
    layer: usize,
    n_head: usize,
    norm: &Norm,
    rewire: Option<&mut (dyn Rewire + '_)>,
) -> Vec<HeadRead> {
    let Some(rewire) = rewire else { return Vec::new() };
    let mut reads = Vec::new();
    for part in HeadInput::ALL {
        for head in 0..n_head {
            let Some(mut shifted) = rewire.delta(Reader::Head { layer, head, part }) else { continue };
            let xs = g.value(x).as_slice().expect("standard layout");
            shifted.iter_mut().zip(xs).for_each(|(d, x)| *d += x);
            let mut normalised = vec![0.0; shifted.len()];
            norm.forward_rows(g.params(), &shifted, &mut normalised);
            reads.push(HeadRead { head, part, normalised });
        }
    }
    reads
}

/// `qkv` (B, T, 3C) with each read's head part projected from its own input by `weight`
/// (3C, C) and `bias`; `qkv` itself when there are none.
pub(super) fn splice(
    g: &mut Graph,
    qkv: Var,
    reads: &[HeadRead],
    n_head: usize,
    weights: (&[f32], Option<&[f32]>),
) -> Var {
    if reads.is_empty() {
        return qkv;
    }
    let mut out = g.ws().copy(g.value(qkv));
    let c3 = *out.shape().last().expect("(B, T, 3C)");
    let (c, rows) = (c3 / 3, out.len() / c3);
    let (hs, (weight, bias)) = (c / n_head, weights);
    let mut all = ArrayViewMut2::from_shape((rows, c3), out.as_slice_mut().expect("fresh array")).expect("sized");
    let w = ArrayView2::from_shape((c3, c), weight).expect("(3C, C)");
    for read in reads {
        let at = read.part.index() * c + read.head * hs;
        let x = ArrayView2::from_shape((rows, c), &read.normalised).expect("sized");
        let mut y = all.slice_mut(s![.., at..at + hs]);
        gemm(1.0, &x, &w.slice(s![at..at + hs, ..]).t(), false, &mut y);
        if let Some(b) = bias {
            y.rows_mut().into_iter().for_each(|mut row| row.iter_mut().zip(&b[at..]).for_each(|(y, b)| *y += b));
        }
    }
    g.push(out, vec![qkv], Edited)
}
