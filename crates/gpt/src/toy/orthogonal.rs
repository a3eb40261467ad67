//! More features than dimensions, as nearly orthogonal as they can be: SAELens's
//! `orthogonalize_embeddings`, 200 steps of Adam (rate 0.01) on the unit directions' squared
//! overlaps, `Σ_{i≠j} (e_i·e_j)² + n Σ_i (e_i·e_i − 1)²`, then each scaled back to unit length.

use crate::sae::normalize_rows;
use ndarray::{Array2, ArrayView2};

const STEPS: usize = 200;
const RATE: f32 = 0.01;
/// Adam's defaults, as `torch.optim.Adam`'s.
const BETAS: (f32, f32) = (0.9, 0.999);
const EPS: f32 = 1e-8;

/// Pushes the rows of `directions` (rows of `d`) apart from unit length, and leaves them there.
pub fn orthogonalize(directions: &mut [f32], d: usize) {
    let n = directions.len() / d;
    normalize_rows(directions, d);
    let mut e = ArrayView2::from_shape((n, d), &*directions).expect("rows of d").to_owned();
    let (mut m, mut v) = (Array2::<f32>::zeros((n, d)), Array2::<f32>::zeros((n, d)));
    for step in 1..=STEPS {
        // G = E Eᵀ; the loss's gradient in G is 2 G off the diagonal and 2n (G − 1) on it, so
        // in E (G symmetric) it is 2 · that · E.
        let mut g = e.dot(&e.t());
        for i in 0..n {
            g.row_mut(i).mapv_inplace(|x| 2.0 * x);
            g[[i, i]] = 2.0 * n as f32 * (g[[i, i]] / 2.0 - 1.0);
        }
        let grad = g.dot(&e) * 2.0;
        let (c1, c2) = (1.0 - BETAS.0.powi(step as i32), 1.0 - BETAS.1.powi(step as i32));
        ndarray::Zip::from(&mut e).and(&mut m).and(&mut v).and(&grad).for_each(|e, m, v, &g| {
            *m = BETAS.0 * *m + (1.0 - BETAS.0) * g;
            *v = BETAS.1 * *v + (1.0 - BETAS.1) * g * g;
            *e -= RATE * (*m / c1) / ((*v / c2).sqrt() + EPS);
        });
    }
    directions.copy_from_slice(e.as_slice().expect("standard layout"));
    normalize_rows(directions, d);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::toy::truth::abs_cosines;

    /// 256 random directions in 64 dimensions overlap by Σ_{i≠j} (e_i·e_j)² ≈ n²/d; pushed apart,
    /// they reach a tight frame's n²/d − n, the least there is (SAELens's own: 1016.7 to 768.0).
    #[test]
    fn random_directions_pushed_apart_reach_the_least_overlap_and_stay_unit() {
        let (n, d) = (256, 64);
        let mut rng = Rng::new(3);
        let mut directions: Vec<f32> = (0..n * d).map(|_| rng.normal()).collect();
        let overlap = |dirs: &[f32]| {
            let cos = abs_cosines(dirs, dirs, d);
            (0..n * n).filter(|k| k / n != k % n).map(|k| cos[k] * cos[k]).sum::<f32>()
        };
        let tight = (n * n / d - n) as f32;
        orthogonalize(&mut directions, d);
        let after = overlap(&directions);
        assert!((after - tight).abs() < 0.01 * tight, "{after} against the least, {tight}");
        for row in directions.chunks(d) {
            assert!((row.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }
}
