//! Pointwise nonlinearities: GELU (exact and tanh form) and ReLU.

use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;
use serde::{Deserialize, Serialize};

/// The MLP's nonlinearity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
pub(super) const FRAC_1_SQRT_2: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// 1/√(2π), the standard normal density at 0.
pub(super) const NORMAL_PDF_0: f32 = 0.398_942_3;
/// Abramowitz and Stegun 7.1.26: t = 1 / (1 + ERF_T·|x|), then a polynomial in t, in Horner's
/// order as `ops::EXP_HORNER`, times t.
pub(super) const ERF_T: f32 = 0.327_591_1;
pub(super) const ERF_HORNER: (f32, [f32; 4]) = (1.061_405_4, [-1.453_152_1, 1.421_413_7, -0.284_496_74, 0.254_829_6]);

/// erf(x) to within 1e-6 in f32 (Abramowitz and Stegun 7.1.26), given `gauss` = exp(-x²).
/// Branch-free so it vectorises; libm's f64 erf took an eighth of a training step.
fn erf_with(x: f32, gauss: f32) -> f32 {
    let t = 1.0 / (1.0 + ERF_T * x.abs());
    let (first, rest) = ERF_HORNER;
    let poly = t * rest.iter().fold(first, |p, &c| c + t * p);
    (1.0 - poly * gauss).copysign(x)
}

/// `(gelu(x), gelu'(x))`, sharing the one exponential both need: exp(-x²/2) is erf's
/// exp(-(x/√2)²) and also √(2π) times the normal density.
#[inline(always)]
pub(super) fn gelu(x: f32) -> (f32, f32) {
    let gauss = super::exp(-0.5 * x * x);
    let cdf = 0.5 * (1.0 + erf_with(x * FRAC_1_SQRT_2, gauss));
    (x * cdf, cdf + x * NORMAL_PDF_0 * gauss)
}

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

/// Runs `sixteen` over `xs` sixteen values a step, writing each value and slope, and `one` over
/// the last few. Sixteen values are four vectors whose long chains of dependent operations
/// interleave, where one vector at a time leaves the CPU waiting on every step of its chain.
pub(super) fn in_sixteens(
    xs: &[f32],
    out: &mut [f32],
    slope: &mut [f32],
    sixteen: impl Fn(&[f32; 16], &mut [f32; 16], &mut [f32; 16]),
    one: impl Fn(f32) -> (f32, f32),
) {
    let (x16, x_tail) = xs.as_chunks::<16>();
    let (out16, out_tail) = out.as_chunks_mut::<16>();
    let (slope16, slope_tail) = slope.as_chunks_mut::<16>();
    for ((o, s), x) in out16.iter_mut().zip(slope16).zip(x16) {
        sixteen(x, o, s);
    }
    for ((o, s), &x) in out_tail.iter_mut().zip(slope_tail).zip(x_tail) {
        (*o, *s) = one(x);
    }
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

#[cfg(test)]
mod tests {
    #[test]
    fn erf_matches_libm_to_within_1e6() {
        let worst = (-6000..=6000)
            .map(|i| i as f32 * 1e-3)
            .map(|x| (super::erf_with(x, (-x * x).exp()) as f64 - libm::erf(x as f64)).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-6, "worst erf error {worst:e}");
    }
}
