//! Newton–Schulz orthogonalisation, Muon's costly middle: a pure function of one matrix, which
//! any worker computes with the same bits.

use crate::ops::gemm::{gemm, gemm_symmetric};
use ndarray::{Array2, ArrayView2};

/// Keller Jordan's quintic, which PyTorch's Muon takes at each of its five steps by default.
const JORDAN: (f32, f32, f32) = (3.4445, -4.775, 2.0315);
/// Polar Express's quintics, one per step (Amsel et al. 2025, "The Polar Express", as
/// modded-nanogpt and nanochat use them): each the best for where the singular values can be
/// after the steps before it. They lift small singular values faster: after three steps, those
/// from a thousandth of the largest up lie in 0.13–1.87, where Keller Jordan's leave 0.04–1.20.
const POLAR_EXPRESS: [(f32, f32, f32); 5] = [
    (8.156_554, -22.483_294, 15.878_77),
    (4.042_93, -2.808_917_5, 0.500_017_8),
    (3.891_667_8, -2.772_484, 0.506_064_83),
    (3.285_753_7, -2.368_129_5, 0.464_490_23),
    (2.346_541_4, -1.709_782_8, 0.423_235_5),
];
/// Polar Express's coefficients assume the singular values at most 1: the norm is taken 2% high.
const POLAR_EXPRESS_SAFETY: f32 = 1.02;
/// Keeps a zero update from dividing by zero.
const EPS: f32 = 1e-7;

/// Which quintic each Newton–Schulz step uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coefficients {
    /// Keller Jordan's at every step (PyTorch's default).
    Jordan,
    /// Polar Express's, one per step; past the fifth, the fifth again.
    PolarExpress,
}

impl Coefficients {
    /// The coefficients a setting names (`jordan`, `polar_express`); Keller Jordan's otherwise.
    pub fn named(name: &str) -> Coefficients {
        match name {
            "polar_express" => Coefficients::PolarExpress,
            _ => Coefficients::Jordan,
        }
    }

    fn at(self, step: usize) -> (f32, f32, f32) {
        match self {
            Coefficients::Jordan => JORDAN,
            Coefficients::PolarExpress => POLAR_EXPRESS[step.min(POLAR_EXPRESS.len() - 1)],
        }
    }

    fn safety(self) -> f32 {
        match self {
            Coefficients::Jordan => 1.0,
            Coefficients::PolarExpress => POLAR_EXPRESS_SAFETY,
        }
    }
}

/// Newton–Schulz: `update` with its singular values pushed towards 1 (about U Vᵀ of its SVD),
/// as `torch.optim.Muon` computes it: scaled to a Frobenius norm of 1 (Polar Express: 1/1.02),
/// then `steps` times `X ← a X + (b A + c A²) X` with `A = X Xᵀ`, on the wide orientation. In f32
/// (PyTorch runs it in bfloat16, for GPUs).
pub fn orthogonalize(update: ArrayView2<f32>, coefficients: Coefficients, steps: usize) -> Array2<f32> {
    let tall = update.nrows() > update.ncols();
    let mut x = if tall { update.t().as_standard_layout().into_owned() } else { update.to_owned() };
    let norm = x.iter().map(|&v| v * v).sum::<f32>().sqrt().max(EPS) * coefficients.safety();
    x.mapv_inplace(|v| v / norm);
    let r = x.nrows();
    let (mut gram, mut poly, mut next) = (Array2::zeros((r, r)), Array2::zeros((r, r)), Array2::zeros(x.raw_dim()));
    for step in 0..steps {
        let (a, b, c) = coefficients.at(step);
        gemm_symmetric(1.0, &x.view(), &x.t(), &mut gram.view_mut()); // A = X Xᵀ
        gemm_symmetric(c, &gram.view(), &gram.view(), &mut poly.view_mut()); // B = b A + c A A
        poly.zip_mut_with(&gram, |p, &g| *p += b * g);
        next.zip_mut_with(&x, |n, &v| *n = a * v); // X = a X + B X
        gemm(1.0, &poly.view(), &x.view(), true, &mut next.view_mut());
        std::mem::swap(&mut x, &mut next);
    }
    if tall {
        x.t().as_standard_layout().into_owned()
    } else {
        x
    }
}

/// A transposed value's cost in multiply-adds: moved one at a time, where products take several
/// at once (about 9 natively and 10–13 in wasm).
const TRANSPOSED: usize = 10;

/// What [`orthogonalize`] costs on a `rows` × `cols` matrix in `steps` steps, in multiply-adds:
/// three products a step over the short side and the long side, and for a tall matrix its two
/// transposes. Sharing matrices by products alone gave the run every tall one of a kind (the
/// 96-channel speedrun: its four 384 × 96 against a helper's four 96 × 384), and the helper waited
/// 0.4 ms a step.
pub fn cost(rows: usize, cols: usize, steps: usize) -> usize {
    let (short, long) = (rows.min(cols), rows.max(cols));
    let transposes = if rows > cols { 2 * TRANSPOSED * rows * cols } else { 0 };
    steps * short * short * (2 * long + short) + transposes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random(rows: usize, cols: usize, seed: u64) -> Array2<f32> {
        let mut rng = Rng::new(seed);
        Array2::from_shape_fn((rows, cols), |_| rng.normal())
    }

    /// The diagonal of `o`'s Gram matrix on its small side: its squared singular values, about.
    fn gram_diagonal(o: &Array2<f32>) -> Vec<f32> {
        let gram = if o.nrows() <= o.ncols() { o.dot(&o.t()) } else { o.t().dot(o) };
        gram.diag().to_vec()
    }

    #[test]
    fn newton_schulz_brings_the_singular_values_near_one() {
        for coefficients in [Coefficients::Jordan, Coefficients::PolarExpress] {
            for (rows, cols) in [(8, 24), (24, 8), (16, 16)] {
                let o = orthogonalize(random(rows, cols, 3).view(), coefficients, 5);
                assert_eq!(o.dim(), (rows, cols));
                // Singular values in (0.5, 1.5).
                let diagonal = gram_diagonal(&o);
                assert!(
                    diagonal.iter().all(|d| (0.25..2.25).contains(d)),
                    "{coefficients:?} {rows}×{cols}: {diagonal:?}"
                );
            }
            let zero = orthogonalize(Array2::zeros((3, 5)).view(), coefficients, 5);
            assert!(zero.iter().all(|&v| v == 0.0), "zero stays zero");
        }
    }

    #[test]
    fn polar_express_lifts_the_small_singular_values_faster() {
        // Singular values from 1 down to a thousandth: each comes out as the steps' polynomial of it.
        let m = Array2::from_shape_fn((16, 48), |(i, j)| if i == j { 10f32.powf(-3.0 * i as f32 / 15.0) } else { 0.0 });
        let smallest = |c, steps| orthogonalize(m.view(), c, steps).diag().iter().fold(f32::MAX, |a, &d| a.min(d));
        let (jordan, polar) = (Coefficients::Jordan, Coefficients::PolarExpress);
        assert!(smallest(polar, 3) > 2.0 * smallest(jordan, 3), "{} vs {}", smallest(polar, 3), smallest(jordan, 3));
        assert!(smallest(polar, 5) > smallest(jordan, 5), "{} vs {}", smallest(polar, 5), smallest(jordan, 5));
    }
}
