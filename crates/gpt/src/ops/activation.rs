//! Pointwise nonlinearities: GELU (exact and tanh form) and ReLU.

use super::gelu::{gelu, in_sixteens};
use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;
use serde::{Deserialize, Serialize};

/// The MLP's nonlinearity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// `x Φ(x)` with the exact normal CDF, as nanoGPT's `nn.GELU()`.
    Gelu,
    /// GPT-2's tanh approximation of GELU.
    GeluTanh,
    /// `max(x, 0)`.
    Relu,
}

const SQRT_2_OVER_PI: f32 = 0.797_884_6;
const GELU_CUBIC: f32 = 0.044_715;
#[inline(always)]
fn gelu_tanh(x: f32) -> (f32, f32) {
    let th = (SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x)).tanh();
    let du = SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_CUBIC * x * x);
    (0.5 * x * (1.0 + th), 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * du)
}

#[inline(always)]
fn relu(x: f32) -> (f32, f32) {
    (x.max(0.0), if x > 0.0 { 1.0 } else { 0.0 })
}

/// Writes `f(x)` and `f'(x)` for every `x`; one copy per activation, so each loop vectorises.
fn map_with_slope(xs: &[f32], out: &mut [f32], slope: &mut [f32], f: impl Fn(f32) -> (f32, f32)) {
    let sixteen = |x: &[f32; 16], o: &mut [f32; 16], s: &mut [f32; 16]| {
        for i in 0..16 {
            (o[i], s[i]) = f(x[i]);
        }
    };
    in_sixteens(xs, out, slope, sixteen, &f);
}

/// [`map_with_slope`] for GELU; in wasm four lanes at a time (`gelu_lanes.rs`), whose fused
/// multiply-adds the scalar form never gets.
fn gelu_map(xs: &[f32], out: &mut [f32], slope: &mut [f32]) {
    #[cfg(target_arch = "wasm32")]
    super::gelu_lanes::map::<core::arch::wasm32::v128>(xs, out, slope);
    #[cfg(not(target_arch = "wasm32"))]
    map_with_slope(xs, out, slope, gelu);
}

/// `f(x)` for one value, as the activation op computes it.
pub(crate) fn activate(kind: Activation, x: f32) -> f32 {
    match kind {
        Activation::Gelu => gelu(x).0,
        Activation::GeluTanh => gelu_tanh(x).0,
        Activation::Relu => relu(x).0,
    }
}

impl Graph<'_> {
    /// `f(x)` elementwise. The slope is kept from the forward pass for the backward one.
    pub fn activation(&mut self, kind: Activation, x: Var) -> Var {
        let xv = self.value(x);
        let mut out = self.ws().array(xv.shape());
        let mut slope = self.ws().scratch(xv.len());
        let (xs, os) = (xv.as_slice().expect("standard layout"), out.as_slice_mut().expect("fresh array"));
        match kind {
            Activation::Gelu => gelu_map(xs, os, &mut slope),
            Activation::GeluTanh => map_with_slope(xs, os, &mut slope, gelu_tanh),
            Activation::Relu => map_with_slope(xs, os, &mut slope, relu),
        }
        self.push(out, vec![x], Slope(slope))
    }
}

/// The backward of any `y = f(x)` elementwise: `dx = dy · f'(x)`, with `f'(x)` kept from forward.
pub(super) struct Slope(pub(super) Vec<f32>);

impl Backward for Slope {
    fn backward(&self, _: &[&ArrayD<f32>], _: &ArrayD<f32>, mut dout: ArrayD<f32>, _: &Workspace) -> Grads {
        // Slices, not ndarray's element iterator, so this loop vectorises.
        let d = dout.as_slice_mut().expect("standard layout");
        d.iter_mut().zip(&self.0).for_each(|(d, s)| *d *= s);
        vec![Some(dout)]
    }

    fn into_buffers(self: Box<Self>) -> Vec<Vec<f32>> {
        vec![self.0]
    }
}
