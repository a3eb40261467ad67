//! Exact GELU, `x Φ(x)`, one value at a time: the formula the activation op runs natively, and
//! the one `gelu_lanes.rs` computes four lanes at a time in wasm (a test holds the two equal);
//! with the loop shape both use.

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
