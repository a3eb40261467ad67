//! QK-norm: each head's query and key divided by its root mean square before attention, with no
//! gain (as modded-nanogpt does). Scores stay bounded, so larger learning rates train steadily;
//! with Muon it reaches a given loss in fewer steps (docs/benchmarks.md).
//!
//! [`Graph::qk_norm`] normalises inside the fused q|k|v buffer; [`normalize_head`] does the same
//! for the one new position of generation (`model/kv_cache.rs`).

use super::norm::NORM_EPS;
use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;

/// Divides one head's query or key `x` by its root mean square, in place; returns the factor.
pub(crate) fn normalize_head(x: &mut [f32]) -> f32 {
    let mean_square = super::fold8(x, 0.0, |s, v| s + v * v, |a, b| a + b) / x.len() as f32;
    let s = 1.0 / (mean_square + NORM_EPS).sqrt();
    x.iter_mut().for_each(|v| *v *= s);
    s
}

/// Each head's query and key of every position of a (B, T, 3C) q|k|v buffer, as `(row, head)`
/// slices in order: the queries' heads, then the keys'.
fn heads(qkv: &[f32], c: usize, hs: usize) -> impl Iterator<Item = &[f32]> {
    qkv.chunks_exact(3 * c).flat_map(move |row| row[..2 * c].chunks_exact(hs))
}

impl Graph<'_> {
    /// The q|k|v projections with each head's queries and keys divided by their root mean square.
    ///
    /// # Shapes
    /// `qkv`: (B, T, 3C) → (B, T, 3C).
    pub fn qk_norm(&mut self, qkv: Var, n_head: usize) -> Var {
        let x = self.value(qkv);
        let &[_, _, c3] = x.shape() else { panic!("qk_norm takes (B, T, 3C)") };
        let (c, mut out) = (c3 / 3, self.ws().copy(x));
        let hs = c / n_head;
        let values = out.as_slice_mut().expect("standard layout");
        let mut factors = Vec::with_capacity(values.len() / c3 * 2 * n_head);
        for row in values.chunks_exact_mut(c3) {
            factors.extend(row[..2 * c].chunks_exact_mut(hs).map(normalize_head));
        }
        self.push(out, vec![qkv], QkNorm { n_head, factors })
    }
}

struct QkNorm {
    n_head: usize,
    /// Each head's 1 / rms, in the order of [`heads`].
    factors: Vec<f32>,
}

impl Backward for QkNorm {
    /// With y = s x and s = (mean(x²) + eps)^(-1/2): dx = s (dy − y mean(dy y)); values pass through.
    fn backward(&self, _: &[&ArrayD<f32>], out: &ArrayD<f32>, mut dout: ArrayD<f32>, _: &Workspace) -> Grads {
        let c = out.shape()[2] / 3;
        let hs = c / self.n_head;
        let ys = out.as_slice().expect("standard layout");
        let ds = dout.as_slice_mut().expect("standard layout");
        let d_heads = ds.chunks_exact_mut(3 * c).flat_map(|row| row[..2 * c].chunks_exact_mut(hs));
        for ((d, y), &s) in d_heads.zip(heads(ys, c, hs)).zip(&self.factors) {
            let mean = d.iter().zip(y).map(|(a, b)| a * b).sum::<f32>() / hs as f32;
            d.iter_mut().zip(y).for_each(|(di, &yi)| *di = s * (*di - yi * mean));
        }
        vec![Some(dout)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_normalised_head_has_unit_root_mean_square() {
        let mut x: Vec<f32> = (0..8).map(|i| 3.0 * (i as f32 * 0.9).sin()).collect();
        normalize_head(&mut x);
        let mean_square = x.iter().map(|v| v * v).sum::<f32>() / 8.0;
        assert!((mean_square - 1.0).abs() < 1e-4, "{mean_square}");
    }
}
