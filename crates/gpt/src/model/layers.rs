//! The two layers every block is built from, a linear map and a norm. Each has a forward pass
//! that records into the autograd [`Graph`] (training, evaluation) and a one-row forward that
//! reads the weights directly (generation with the key/value cache, `kv_cache.rs`).

use crate::autograd::{Graph, Var};
use crate::ops::norm::{norm_input_grads, normalize_row};
use crate::ops::NormKind;
use crate::params::{Init, Params};
use crate::rng::Rng;
use ndarray::ArrayD;

/// Where a parameter sits in [`Params`]: an index, not the tensor itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParamId(pub(crate) usize);

impl ParamId {
    pub(crate) fn var(self, g: &Graph) -> Var {
        g.param(self.0)
    }

    pub(crate) fn slice(self, params: &[ArrayD<f32>]) -> &[f32] {
        params[self.0].as_slice().expect("parameters are kept in standard layout")
    }
}

/// A linear layer: weight (out, in) as PyTorch stores it, and an optional bias.
pub(crate) struct Linear {
    pub(crate) weight: ParamId,
    pub(crate) bias: Option<ParamId>,
}

impl Linear {
    /// Registers `{name}.weight` (and `{name}.bias` when `bias`), mapping `n_in` to `n_out` channels.
    pub(crate) fn new(
        p: &mut Params,
        name: &str,
        n_in: usize,
        n_out: usize,
        init: Init,
        bias: bool,
        rng: &mut Rng,
    ) -> Self {
        Linear {
            weight: ParamId(p.add(format!("{name}.weight"), &[n_out, n_in], init, rng)),
            bias: bias.then(|| ParamId(p.add(format!("{name}.bias"), &[n_out], Init::Zeros, rng))),
        }
    }

    /// `x Wᵀ + b`. Shapes: (..., in) → (..., out).
    pub(crate) fn forward(&self, g: &mut Graph, x: Var) -> Var {
        let y = g.matmul(x, self.weight.var(g), false, true);
        match self.bias {
            Some(b) => g.add(y, b.var(g)),
            None => y,
        }
    }

    /// `W x + b` for one row, into `out`.
    pub(crate) fn forward_row(&self, params: &[ArrayD<f32>], x: &[f32], out: &mut Vec<f32>) {
        let w = self.weight.slice(params);
        out.clear();
        out.extend(w.chunks_exact(x.len()).map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum::<f32>()));
        if let Some(b) = self.bias {
            out.iter_mut().zip(b.slice(params)).for_each(|(o, b)| *o += b);
        }
    }
}

/// LayerNorm or RMSNorm over the channels, with a weight and (LayerNorm with bias only) a bias.
pub(crate) struct Norm {
    kind: NormKind,
    pub(crate) weight: ParamId,
    bias: Option<ParamId>,
}

impl Norm {
    /// Registers `{name}.weight` (ones) and, for a LayerNorm with `bias`, `{name}.bias` (zeros).
    pub(crate) fn new(p: &mut Params, name: &str, kind: NormKind, c: usize, bias: bool, rng: &mut Rng) -> Self {
        let has_bias = bias && kind == NormKind::LayerNorm;
        Norm {
            kind,
            weight: ParamId(p.add(format!("{name}.weight"), &[c], Init::Ones, rng)),
            bias: has_bias.then(|| ParamId(p.add(format!("{name}.bias"), &[c], Init::Zeros, rng))),
        }
    }

    /// Shapes: (..., C) → (..., C).
    pub(crate) fn forward(&self, g: &mut Graph, x: Var) -> Var {
        g.norm(self.kind, x, self.weight.var(g), self.bias.map(|b| b.var(g)))
    }

    pub(crate) fn forward_row(&self, params: &[ArrayD<f32>], x: &[f32], out: &mut Vec<f32>) {
        out.resize(x.len(), 0.0);
        self.forward_rows(params, x, out);
    }

    /// Each row of `x` normalised into `out`, as long.
    pub(crate) fn forward_rows(&self, params: &[ArrayD<f32>], x: &[f32], out: &mut [f32]) {
        let (w, bias) = (self.weight.slice(params), self.bias.map(|b| b.slice(params)));
        for (x, out) in x.chunks_exact(w.len()).zip(out.chunks_exact_mut(w.len())) {
            normalize_row(self.centred(), x, w, bias, out);
        }
    }

    /// Whether it subtracts the mean (LayerNorm) or not (RMSNorm).
    pub(crate) fn centred(&self) -> bool {
        self.kind == NormKind::LayerNorm
    }

    /// The reciprocal scale (1 / standard deviation, or root mean square) of each row of `x`.
    pub(super) fn scales(&self, params: &[ArrayD<f32>], x: &[f32]) -> Vec<f32> {
        let c = self.weight.slice(params).len();
        let (ones, mut out) = (vec![1.0; c], vec![0.0; c]);
        x.chunks_exact(c).map(|row| normalize_row(self.centred(), row, &ones, None, &mut out).1).collect()
    }

    /// Adds to `dx` the gradient at one input row given `dy` at its output, with the row's scale
    /// held at `scale` (circuit tracing's frozen norm): `scale · (dy ⊙ w)`, centred for LayerNorm.
    pub(super) fn frozen_grad(&self, params: &[ArrayD<f32>], scale: f32, dy: &[f32], dx: &mut [f32]) {
        let w = self.weight.slice(params);
        let mean =
            if self.centred() { dy.iter().zip(w).map(|(d, w)| d * w).sum::<f32>() / w.len() as f32 } else { 0.0 };
        dx.iter_mut().zip(dy.iter().zip(w)).for_each(|(x, (d, w))| *x += scale * (d * w - mean));
    }

    /// The gradients at this norm's input rows `x`, given those at its output `dy`.
    pub(super) fn input_grads(&self, params: &[ArrayD<f32>], x: &[f32], dy: &[f32]) -> Vec<f32> {
        let mut dx = vec![0.0; x.len()];
        norm_input_grads(self.centred(), x, self.weight.slice(params), dy, &mut dx);
        dx
    }
}

/// Training-mode dropout: its probability (the model's, read at each pass so it can change
/// between steps) and the randomness for its masks.
pub(crate) struct Dropout<'a> {
    pub(crate) p: f32,
    pub(crate) rng: &'a mut Rng,
}

/// Inverted dropout when training (`d` given); the identity otherwise.
pub(crate) fn dropout(g: &mut Graph, x: Var, d: Option<&mut Dropout>) -> Var {
    match d {
        Some(d) if d.p > 0.0 => g.dropout(x, d.p, d.rng),
        _ => x,
    }
}
