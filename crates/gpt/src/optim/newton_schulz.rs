//! Newton–Schulz orthogonalisation, Muon's costly middle: a pure function of one matrix, which
//! any worker computes with the same bits.

use crate::ops::gemm::{gemm, gemm_symmetric};
use ndarray::{Array2, ArrayView2};

/// Newton–Schulz's quintic coefficients, Keller Jordan's, and how many steps (PyTorch's defaults).
pub const NS_COEFFICIENTS: (f32, f32, f32) = (3.4445, -4.775, 2.0315);
pub const NS_STEPS: usize = 5;
/// Keeps a zero update from dividing by zero.
const EPS: f32 = 1e-7;

/// Newton–Schulz: `update` with its singular values pushed towards 1 (about U Vᵀ of its SVD),
/// as `torch.optim.Muon` computes it: scaled to a Frobenius norm of 1, then five times
/// `X ← a X + (b A + c A²) X` with `A = X Xᵀ`, on the wide orientation. In f32 (PyTorch runs it
/// in bfloat16, for GPUs).
pub fn orthogonalize(update: ArrayView2<f32>) -> Array2<f32> {
    let tall = update.nrows() > update.ncols();
    let mut x = if tall { update.t().as_standard_layout().into_owned() } else { update.to_owned() };
    let norm = x.iter().map(|&v| v * v).sum::<f32>().sqrt().max(EPS);
    x.mapv_inplace(|v| v / norm);
    let (a, b, c) = NS_COEFFICIENTS;
    let r = x.nrows();
    let (mut gram, mut poly, mut next) = (Array2::zeros((r, r)), Array2::zeros((r, r)), Array2::zeros(x.raw_dim()));
    for _ in 0..NS_STEPS {
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

/// Multiply-adds [`orthogonalize`] takes on a `rows` × `cols` matrix: three products a step over
/// the short side and the long side.
pub fn cost(rows: usize, cols: usize) -> usize {
    let (short, long) = (rows.min(cols), rows.max(cols));
    short * short * (2 * long + short)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random(rows: usize, cols: usize, seed: u64) -> Array2<f32> {
        let mut rng = Rng::new(seed);
        Array2::from_shape_fn((rows, cols), |_| rng.normal())
    }

    #[test]
    fn newton_schulz_brings_the_singular_values_near_one() {
        for (rows, cols) in [(8, 24), (24, 8), (16, 16)] {
            let o = orthogonalize(random(rows, cols, 3).view());
            assert_eq!(o.dim(), (rows, cols));
            // Its Gram matrix on the small side is near the identity: singular values in (0.5, 1.5).
            let gram = if rows <= cols { o.dot(&o.t()) } else { o.t().dot(&o) };
            for (i, row) in gram.rows().into_iter().enumerate() {
                assert!((0.25..2.25).contains(&row[i]), "{rows}×{cols}: diagonal {}", row[i]);
            }
        }
        assert!(orthogonalize(Array2::zeros((3, 5)).view()).iter().all(|&v| v == 0.0), "zero stays zero");
    }
}
