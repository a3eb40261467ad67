//! LayerNorm and RMSNorm over the last axis, each one fused kernel forward and backward.

use super::rows;
use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;
use serde::{Deserialize, Serialize};

/// Which normalisation a block uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum NormKind {
    /// Subtract the mean, divide by the standard deviation (nanoGPT, GPT-2).
    LayerNorm,
    /// Divide by the root mean square, with no centring and no bias (LLaMA).
    RmsNorm,
}

/// Added to the variance before the square root, as PyTorch's LayerNorm default.
pub const NORM_EPS: f32 = 1e-5;

/// Writes one normalised, scaled and shifted row into `out`; returns its mean (0 for RMSNorm)
/// and reciprocal standard deviation, which the backward pass reuses.
pub(crate) fn normalize_row(centred: bool, x: &[f32], w: &[f32], b: Option<&[f32]>, out: &mut [f32]) -> (f32, f32) {
    let c = x.len() as f32;
    let m = if centred { super::sum(x) / c } else { 0.0 };
    let var = super::fold8(x, 0.0, |s, v| s + (v - m) * (v - m), |a, b| a + b) / c;
    let s = 1.0 / (var + NORM_EPS).sqrt();
    for (i, (o, &v)) in out.iter_mut().zip(x).enumerate() {
        *o = (v - m) * s * w[i] + b.map_or(0.0, |b| b[i]);
    }
    (m, s)
}

/// `dx = s (dxhat − mean(dxhat) − xhat mean(dxhat xhat))` for one row, without the middle term
/// for RMSNorm; `both` is `dxhat xhat`.
fn input_grad(centred: bool, s: f32, xhat: &[f32], dxhat: &[f32], both: &[f32], dx: &mut [f32]) {
    let c = xhat.len() as f32;
    let mean_d = if centred { super::sum(dxhat) / c } else { 0.0 };
    let mean_dx = super::sum(both) / c;
    for (i, d) in dx.iter_mut().enumerate() {
        *d = s * (dxhat[i] - mean_d - xhat[i] * mean_dx);
    }
}

/// The gradients `dx` at a norm's input rows `x`, given the gradients `dy` at its output rows
/// (weight `w`, rows of `w.len()`): one reader's gradient, read off a pass whose norm many readers
/// share.
pub(crate) fn norm_input_grads(centred: bool, x: &[f32], w: &[f32], dy: &[f32], dx: &mut [f32]) {
    let c = w.len();
    let (ones, mut xhat, mut dxhat, mut both) = (vec![1.0; c], vec![0.0; c], vec![0.0; c], vec![0.0; c]);
    for ((xr, dr), dxr) in rows(x, c).zip(rows(dy, c)).zip(dx.chunks_exact_mut(c)) {
        let (_, s) = normalize_row(centred, xr, &ones, None, &mut xhat);
        for i in 0..c {
            dxhat[i] = dr[i] * w[i];
            both[i] = dxhat[i] * xhat[i];
        }
        input_grad(centred, s, &xhat, &dxhat, &both, dxr);
    }
}

impl Graph<'_> {
    /// Normalises each row of `x` over its last axis, then scales by `weight` and adds `bias`.
    ///
    /// # Shapes
    /// `x`: (..., C); `weight`, `bias`: (C). Out: like `x`.
    pub fn norm(&mut self, kind: NormKind, x: Var, weight: Var, bias: Option<Var>) -> Var {
        let xv = self.value(x);
        let c = *xv.shape().last().expect("norm needs at least 1-D input");
        let w = self.value(weight).as_slice().expect("standard layout");
        assert_eq!(w.len(), c, "norm weight must match the last axis");
        let b = bias.map(|b| self.value(b).as_slice().expect("standard layout"));
        let centred = kind == NormKind::LayerNorm;
        let mut out = self.ws().array(xv.shape());
        let n_rows = xv.len() / c.max(1);
        let (mut mean, mut rstd) = (vec![0.0; n_rows], vec![0.0; n_rows]);
        let xs = xv.as_slice().expect("standard layout");
        let os = out.as_slice_mut().expect("fresh array");
        for (r, (xr, or)) in rows(xs, c).zip(os.chunks_exact_mut(c)).enumerate() {
            (mean[r], rstd[r]) = normalize_row(centred, xr, w, b, or);
        }
        let mut inputs = vec![x, weight];
        inputs.extend(bias);
        self.push(out, inputs, Norm { centred, mean, rstd })
    }
}

struct Norm {
    centred: bool,
    mean: Vec<f32>,
    rstd: Vec<f32>,
}

impl Backward for Norm {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, ws: &Workspace) -> Grads {
        let (x, w) = (inputs[0], inputs[1].as_slice().expect("standard layout"));
        let c = w.len();
        let mut dx = ws.array(x.shape());
        let mut dw = vec![0.0; c];
        let mut db = vec![0.0; c];
        let (mut dxhat, mut xhat, mut both) = (vec![0.0; c], vec![0.0; c], vec![0.0; c]);
        let dxs = dx.as_slice_mut().expect("fresh array");
        let xs = x.as_slice().expect("standard layout");
        let ds = dout.as_slice().expect("standard layout");
        for (r, ((xr, dr), dxr)) in rows(xs, c).zip(rows(ds, c)).zip(dxs.chunks_exact_mut(c)).enumerate() {
            let (m, s) = (self.mean[r], self.rstd[r]);
            // xhat = (x - m) s; with dxhat = dy w:
            // dx = s (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), without the middle term for RMSNorm.
            for i in 0..c {
                xhat[i] = (xr[i] - m) * s;
                dxhat[i] = dr[i] * w[i];
                both[i] = dxhat[i] * xhat[i];
                dw[i] += dr[i] * xhat[i];
                db[i] += dr[i];
            }
            input_grad(self.centred, s, &xhat, &dxhat, &both, dxr);
        }
        ws.recycle_array(dout);
        let dw = ArrayD::from_shape_vec(inputs[1].raw_dim(), dw).expect("sized above");
        let mut grads = vec![Some(dx), Some(dw)];
        if inputs.len() == 3 {
            grads.push(Some(ArrayD::from_shape_vec(inputs[2].raw_dim(), db).expect("sized above")));
        }
        grads
    }
}
