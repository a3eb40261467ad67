//! Inverted dropout with a seeded mask.

use super::activation::Slope;
use crate::autograd::{Graph, Var};
use crate::rng::Rng;

/// A mask of `n` entries, each `1/(1-p)` with probability `1-p` and 0 otherwise, so the
/// expected value of the masked input is unchanged.
pub(crate) fn dropout_mask(n: usize, p: f32, rng: &mut Rng) -> Vec<f32> {
    let keep = 1.0 / (1.0 - p);
    (0..n).map(|_| if rng.uniform() < p { 0.0 } else { keep }).collect()
}

impl Graph<'_> {
    /// Zeroes each element with probability `p` and scales the rest by `1/(1-p)`.
    pub fn dropout(&mut self, x: Var, p: f32, rng: &mut Rng) -> Var {
        let xv = self.value(x);
        let mask = dropout_mask(xv.len(), p, rng);
        let mut out = self.ws().copy(xv);
        let o = out.as_slice_mut().expect("fresh array");
        o.iter_mut().zip(&mask).for_each(|(o, m)| *o *= m);
        self.push(out, vec![x], Slope(mask))
    }
}
