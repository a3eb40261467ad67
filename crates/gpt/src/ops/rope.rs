//! Rotary position embeddings (RoPE; Su et al. 2021, "RoFormer"). Instead of a learned vector
//! added to each token, every head's query and key are turned by an angle that grows with their
//! position, so the score between two positions depends only on how far apart they are. Channel
//! pairs `(i, i + hs/2)` of a head turn by `pos · 10000^(-2i/hs)`: the "rotate half" layout of
//! GPT-NeoX and Hugging Face's LLaMA.
//!
//! [`Graph::rope`] rotates the queries and keys inside the fused q|k|v buffer before attention;
//! [`rotate_head`] does the same for the one new position of generation (`model/kv_cache.rs`).

use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;

/// The base of the rotation frequencies, as in RoFormer and LLaMA.
pub const ROPE_BASE: f64 = 10_000.0;

/// Each channel pair's frequency, for heads of `hs` channels: in f32, as PyTorch's references
/// compute it.
fn frequencies(hs: usize) -> Vec<f32> {
    (0..hs / 2).map(|i| (1.0 / ROPE_BASE.powf(2.0 * i as f64 / hs as f64)) as f32).collect()
}

/// `(cos, sin)` of each channel pair's angle at position `pos`.
fn angles(pos: usize, frequencies: &[f32]) -> impl Iterator<Item = (f32, f32)> + '_ {
    frequencies.iter().map(move |&frequency| {
        let (sin, cos) = (pos as f32 * frequency).sin_cos();
        (cos, sin)
    })
}

/// Turns one head's channels `x` (an even number) by the angles `cs` (forwards, or back when
/// `inverse`: the backward pass, since the rotation is orthogonal).
fn rotate(x: &mut [f32], cs: &[(f32, f32)], inverse: bool) {
    let (a, b) = x.split_at_mut(cs.len());
    for ((x1, x2), &(cos, sin)) in a.iter_mut().zip(b).zip(cs) {
        let sin = if inverse { -sin } else { sin };
        (*x1, *x2) = (*x1 * cos - *x2 * sin, *x2 * cos + *x1 * sin);
    }
}

/// Rotates one head's query or key `x` to position `pos` (generation, one position at a time).
pub(crate) fn rotate_head(x: &mut [f32], pos: usize) {
    let cs: Vec<(f32, f32)> = angles(pos, &frequencies(x.len())).collect();
    rotate(x, &cs, false);
}

/// Rotates the queries and keys of every head of every position of a (B, T, 3C) q|k|v buffer,
/// in place; values stay as they are.
fn rotate_qk(qkv: &mut [f32], t: usize, c: usize, n_head: usize, inverse: bool) {
    let hs = c / n_head;
    let frequencies = frequencies(hs);
    let table: Vec<Vec<(f32, f32)>> = (0..t).map(|pos| angles(pos, &frequencies).collect()).collect();
    for (row, position) in qkv.chunks_exact_mut(3 * c).zip((0..t).cycle()) {
        for head in row[..2 * c].chunks_exact_mut(hs) {
            rotate(head, &table[position], inverse);
        }
    }
}

impl Graph<'_> {
    /// The q|k|v projections with each head's queries and keys rotated to their positions.
    ///
    /// # Shapes
    /// `qkv`: (B, T, 3C) → (B, T, 3C); C / `n_head` must be even.
    pub fn rope(&mut self, qkv: Var, n_head: usize) -> Var {
        let x = self.value(qkv);
        let &[_, t, c3] = x.shape() else { panic!("rope takes (B, T, 3C)") };
        let mut out = self.ws().copy(x);
        rotate_qk(out.as_slice_mut().expect("standard layout"), t, c3 / 3, n_head, false);
        self.push(out, vec![qkv], Rope { n_head })
    }
}

struct Rope {
    n_head: usize,
}

impl Backward for Rope {
    /// The rotation is orthogonal: its gradient turns `dout` back by the same angles.
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, mut dout: ArrayD<f32>, _: &Workspace) -> Grads {
        let (t, c3) = (inputs[0].shape()[1], inputs[0].shape()[2]);
        rotate_qk(dout.as_slice_mut().expect("standard layout"), t, c3 / 3, self.n_head, true);
        vec![Some(dout)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_depends_only_on_the_distance_between_positions() {
        let q: Vec<f32> = (0..8).map(|i| (i as f32 * 0.7).sin()).collect();
        let k: Vec<f32> = (0..8).map(|i| (i as f32).cos()).collect();
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let score = |pq: usize, pk: usize| {
            let (mut q, mut k) = (q.clone(), k.clone());
            rotate_head(&mut q, pq);
            rotate_head(&mut k, pk);
            dot(&q, &k)
        };
        assert!((score(5, 3) - score(12, 10)).abs() < 1e-5, "{} vs {}", score(5, 3), score(12, 10));
        assert!((score(0, 0) - dot(&q, &k)).abs() < 1e-6, "position 0 turns nothing");
        let mut x = q.clone();
        rotate_head(&mut x, 7);
        let cs: Vec<_> = angles(7, &frequencies(8)).collect();
        rotate(&mut x, &cs, true);
        assert!(x.iter().zip(&q).all(|(a, b)| (a - b).abs() < 1e-6), "the inverse turns it back");
    }
}
