//! Exact GELU and its slope four lanes at a time, as wasm computes them: the formulas of
//! `gelu.rs` and `ops::exp`, written over [`Lanes`] so that every polynomial step is one
//! fused multiply-add where relaxed SIMD has it (about a third fewer vector operations than the
//! scalar form, which LLVM vectorises but never fuses), and so that natively a test holds it to
//! the scalar form.

use super::gelu::{gelu as gelu_scalar, in_sixteens, ERF_HORNER, ERF_T, FRAC_1_SQRT_2, NORMAL_PDF_0};
use super::lanes::Lanes;
use super::{EXP_CUT, EXP_HORNER, EXP_RANGE, LN2_HI, LN2_LO, ROUND};

/// [`super::exp`] in each lane.
#[inline(always)]
fn exp<L: Lanes>(x: L) -> L {
    let clamped = x.clamp(EXP_RANGE.0, EXP_RANGE.1);
    let shifted = L::mul_add(L::splat(ROUND), clamped, L::splat(std::f32::consts::LOG2_E));
    let k = shifted.sub(L::splat(ROUND));
    let r = L::neg_mul_add(L::neg_mul_add(clamped, k, L::splat(LN2_HI)), k, L::splat(LN2_LO));
    let (first, rest) = EXP_HORNER;
    let p = rest.iter().fold(L::splat(first), |p, &c| L::mul_add(L::splat(c), p, r));
    p.mul(shifted.pow2_of_shifted()).zero_where_below(x, EXP_CUT)
}

/// `(gelu(x), gelu'(x))` in each lane, as `activation.rs`'s scalar `gelu`.
#[inline(always)]
fn gelu<L: Lanes>(x: L) -> (L, L) {
    let gauss = exp(x.mul(x).mul(L::splat(-0.5)));
    let z = x.mul(L::splat(FRAC_1_SQRT_2));
    let one = L::splat(1.0);
    let t = one.div(L::mul_add(one, z.abs(), L::splat(ERF_T)));
    let (first, rest) = ERF_HORNER;
    let poly = rest.iter().fold(L::splat(first), |p, &c| L::mul_add(L::splat(c), p, t)).mul(t);
    let erf = L::neg_mul_add(one, poly, gauss).with_sign_of(z);
    let cdf = L::mul_add(L::splat(0.5), L::splat(0.5), erf);
    (x.mul(cdf), L::mul_add(cdf, x.mul(L::splat(NORMAL_PDF_0)), gauss))
}

/// Writes gelu(x) to `out` and gelu'(x) to `slope` for every x in `xs`: four vectors a step
/// ([`in_sixteens`]), the last few values one at a time.
pub(super) fn map<L: Lanes>(xs: &[f32], out: &mut [f32], slope: &mut [f32]) {
    let sixteen = |x: &[f32; 16], o: &mut [f32; 16], s: &mut [f32; 16]| {
        for v in 0..4 {
            // SAFETY: each of the three arrays holds sixteen f32s, so lanes 4v..4v + 4 are in it.
            unsafe {
                let (value, grad) = gelu(L::load(x[4 * v..].as_ptr()));
                value.store(o[4 * v..].as_mut_ptr());
                grad.store(s[4 * v..].as_mut_ptr());
            }
        }
    };
    in_sixteens(xs, out, slope, sixteen, gelu_scalar);
}

#[cfg(test)]
mod tests {
    #[test]
    fn equals_the_scalar_form() {
        // -12..12 in steps of 1e-3, past where the exponential is cut to 0 (|x| > 9.42), and 23
        // values (a tail of 7 past the vectors).
        let xs: Vec<f32> =
            (-12_000..=12_000).map(|i| i as f32 * 1e-3).chain((0..23).map(|i| i as f32 - 11.5)).collect();
        let (mut out, mut slope) = (vec![0.0; xs.len()], vec![0.0; xs.len()]);
        super::map::<[f32; 4]>(&xs, &mut out, &mut slope);
        for ((&x, &value), &grad) in xs.iter().zip(&out).zip(&slope) {
            let (want, want_grad) = super::gelu_scalar(x);
            let close = |got: f32, want: f32| (got - want).abs() <= 1e-6 * (1.0 + want.abs());
            assert!(
                close(value, want) && close(grad, want_grad),
                "gelu({x}) = {value}, {grad}: want {want}, {want_grad}"
            );
        }
        let (mut out, mut slope) = ([0.0; 16], [0.0; 16]);
        super::map::<[f32; 4]>(&[f32::NAN; 16], &mut out, &mut slope);
        assert!(out.iter().all(|v| v.is_nan()), "NaN stays NaN, so divergence is still seen");
    }
}
