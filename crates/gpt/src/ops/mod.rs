//! The differentiable ops, one family per file, each op's backward written beside its forward.
//! Each adds a method to [`Graph`](crate::autograd::Graph).

pub mod activation;
pub mod attention;
mod causal;
pub mod cross_entropy;
pub mod dropout;
pub mod elementwise;
pub mod embedding;
mod gelu;
#[cfg(any(target_arch = "wasm32", test))]
mod gelu_lanes;
pub(crate) mod gemm;
#[cfg(any(target_arch = "wasm32", test))]
mod gemm_kernel;
#[cfg(any(target_arch = "wasm32", test))]
mod lanes;
pub mod matmul;
pub mod norm;
#[cfg(any(target_arch = "wasm32", test))]
mod packing;
pub mod qk_norm;
pub mod rope;
pub mod take;

pub use activation::Activation;
pub use cross_entropy::IGNORE;
pub use norm::NormKind;

/// Splits a standard-layout slice into `rows` rows of equal length.
pub(crate) fn rows(x: &[f32], width: usize) -> std::slice::ChunksExact<'_, f32> {
    x.chunks_exact(width)
}

/// Replaces `row` by softmax(`row`), subtracting the maximum first so nothing overflows.
pub(crate) fn softmax_in_place(row: &mut [f32]) {
    let max = max(row);
    row.iter_mut().for_each(|s| *s = exp(*s - max));
    let sum = sum(row);
    row.iter_mut().for_each(|s| *s /= sum);
}

/// The largest value (NaNs skipped, as `f32::max` does; −∞ when empty).
pub(crate) fn max(xs: &[f32]) -> f32 {
    let larger = |m: f32, x: f32| if x > m { x } else { m };
    fold8(xs, f32::NEG_INFINITY, larger, larger)
}

/// The index of the largest value, the first of equals (NaNs never win).
pub(crate) fn argmax(xs: &[f32]) -> usize {
    xs.iter().enumerate().fold(0, |best, (i, &x)| if x > xs[best] { i } else { best })
}

/// The sum, in the fixed order of [`fold8`].
pub(crate) fn sum(xs: &[f32]) -> f32 {
    fold8(xs, 0.0, |s, x| s + x, |a, b| a + b)
}

/// Folds `xs` with `f` in eight interleaved lanes, joins the lanes with `join`, then folds in the
/// tail: the same order on every machine, and one that vectorises, where one running fold is one
/// step at a time.
pub(crate) fn fold8<A: Copy>(xs: &[f32], init: A, f: impl Fn(A, f32) -> A, join: impl Fn(A, A) -> A) -> A {
    let mut lanes = [init; 8];
    let (chunks, tail) = xs.as_chunks::<8>();
    for chunk in chunks {
        lanes.iter_mut().zip(chunk).for_each(|(lane, &x)| *lane = f(*lane, x));
    }
    tail.iter().fold(lanes.into_iter().fold(init, join), |acc, &x| f(acc, x))
}

/// Where [`exp`] clamps its argument: past these, e^x leaves f32's normal range.
pub(super) const EXP_RANGE: (f32, f32) = (-87.3, 88.7);
/// Below this, [`exp`] gives exactly 0: e^x < 2⁻⁶⁴ is nothing beside the terms it is summed
/// with (a softmax's largest is 1), but times a gradient it lands among the subnormal floats,
/// which many CPUs handle a hundred times slower. Saturated softmaxes and GELUs made a run at too
/// high a learning rate nine times slower, natively and in wasm (neither flushes them).
pub(super) const EXP_CUT: f32 = -44.361_42;
/// ln 2 split in two, so that k·ln2 subtracts exactly for every k in range.
pub(super) const LN2_HI: f32 = 0.693_145_75;
pub(super) const LN2_LO: f32 = 1.428_606_8e-6;
/// Adding and removing 1.5·2²³ rounds to the nearest integer with plain float adds; `floor` is
/// a library call on baseline x86-64 and would stop the loop from vectorising.
pub(super) const ROUND: f32 = 12_582_912.0;
/// e^r's Taylor series to degree 7 in Horner's order: r⁷'s coefficient starts the sum, then
/// each of these in turn is added to the sum times r.
pub(super) const EXP_HORNER: (f32, [f32; 7]) =
    (1.0 / 5040.0, [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0]);

/// e^x to about one ulp, and 0 below [`EXP_CUT`]; branch-free so loops over it vectorise (libm's
/// `expf` is a call per element). Range reduction e^x = 2^k e^r with |r| ≤ ln2/2, then a degree-7
/// Taylor polynomial, whose truncation error there is below 1e-8. NaN stays NaN, so divergence
/// is still seen.
pub(crate) fn exp(x: f32) -> f32 {
    let clamped = x.clamp(EXP_RANGE.0, EXP_RANGE.1);
    let shifted = clamped * std::f32::consts::LOG2_E + ROUND;
    let k = shifted - ROUND;
    let r = clamped - k * LN2_HI - k * LN2_LO;
    let (first, rest) = EXP_HORNER;
    let e = rest.iter().fold(first, |p, &c| c + r * p) * pow2_of_shifted(shifted);
    if x < EXP_CUT {
        0.0
    } else {
        e
    }
}

/// 2^k from `shifted` = k + [`ROUND`]: k sits in its low bits, so integer adds and a shift
/// build 2^k, where a float to integer conversion costs wasm a NaN-checking sequence.
fn pow2_of_shifted(shifted: f32) -> f32 {
    f32::from_bits(shifted.to_bits().wrapping_sub(ROUND.to_bits()).wrapping_add(127) << 23)
}

#[cfg(test)]
mod tests {
    #[test]
    fn exp_is_within_two_ulp_of_std_and_zero_below_the_cut() {
        for i in -87_000..88_000 {
            let x = i as f32 * 1e-3;
            let (got, want) = (super::exp(x), x.exp());
            if x < super::EXP_CUT {
                assert_eq!(got, 0.0, "exp({x})");
            } else {
                assert!((got - want).abs() <= 2.5e-7 * want, "exp({x}) = {got}, std says {want}");
            }
        }
        assert!(super::exp(super::EXP_CUT) >= 2f32.powi(-64) * (1.0 - 2.5e-7));
        assert!(super::exp(f32::NAN).is_nan());
        assert_eq!(super::exp(f32::NEG_INFINITY), 0.0);
    }
}
