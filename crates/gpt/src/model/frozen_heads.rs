//! A reader's gradient in the frozen model split by the heads that carry it between positions
//! (head loadings, as Anthropic's "Tracing attention computation", 2025, splits a graph's edges).
//! Frozen, each block's backward map is the position's own path D (the residual, a skip
//! connection, every norm, each head's weight from a position to itself) plus each head's part
//! between positions X_h. Expanded by the lowest block that crosses positions, the whole map is
//! D…D + Σ over blocks L and heads h of (D below L) X_{L,h} (everything above L): so at any
//! position other than the reader's, where D…D gives nothing (causal attention never carries back
//! to a later position), the parts by (L, h) add up to the gradient exactly. The head of a part is
//! the one that first carries what a node writes away from its position.

use super::frozen::{Carry, FrozenPass, FrozenRead};
use super::gpt::GPT;

/// What hears each part of the readers' gradient: `(Some(layer) | None, (block, head), g, t)`,
/// where the node writes (as `WriteSink`), and the block and head that carried the part.
pub type HeadSink<'a> = dyn FnMut(Option<usize>, (usize, usize), &[f32], usize) + 'a;

impl GPT {
    /// `frozen_backward`'s readers, their gradient split by the head of the lowest block that
    /// carries it between positions: for every block and head, `write(at, (block, head), g, t)` at
    /// each place below that block where nodes write. At every position but its reader's, a
    /// reader's parts add up to what `frozen_backward` gives there.
    pub fn frozen_head_backward(
        &self,
        frozen: &FrozenPass,
        reads: &[(FrozenRead, usize)],
        directions: &[f32],
        skips: &[Option<&[f32]>],
        write: &mut HeadSink,
    ) {
        let (c, heads) = (self.config().n_embd, self.config().n_head);
        let n = reads.len();
        let (mut scratch, mut part) = ([vec![], vec![], vec![]], vec![]);
        let mut split = |block: usize, g: &mut [f32], t: usize| {
            scratch.iter_mut().for_each(|s| s.resize(n * t * c, 0.0));
            part.resize(n * t * c, 0.0);
            for head in 0..heads {
                // What crosses positions in this head, then each position's own path below.
                part.fill(0.0);
                self.heads_backward(frozen, (block, Carry::Across(head)), (g, t), Some(&mut part), &mut scratch);
                for layer in (0..block).rev() {
                    write(Some(layer), (block, head), &part, t);
                    self.skip_backward(frozen, layer, skips, (&mut part, t), &mut scratch[0]);
                    self.heads_backward(frozen, (layer, Carry::Own), (&mut part, t), None, &mut scratch);
                }
                write(None, (block, head), &part, t);
            }
        };
        self.backward_through(frozen, (reads, directions), skips, &mut |_, _, _| {}, &mut split);
    }
}

#[cfg(test)]
mod tests {
    use crate::config::GPTConfig;
    use crate::model::{FrozenRead, GPT};
    use crate::rng::Rng;
    use std::collections::HashMap;

    #[test]
    fn the_heads_parts_add_up_to_the_gradient_at_every_position_but_the_readers() {
        let model = GPT::new(GPTConfig { vocab_size: 11, ..GPTConfig::small(3, 2, 16, 12) }, 7).unwrap();
        let tokens = [1, 4, 2, 9, 3, 3, 7, 0, 5, 10];
        let frozen = model.freeze(&tokens).unwrap();
        let mut rng = Rng::new(3);
        let skip: Vec<f32> = (0..16 * 16).map(|_| rng.normal() * 0.1).collect();
        let skips = [None, Some(skip.as_slice()), None];
        let reads =
            [(FrozenRead::Logits, 9), (FrozenRead::MlpIn { layer: 2 }, 6), (FrozenRead::AttnIn { layer: 1 }, 4)];
        let directions: Vec<f32> = (0..3 * 16).map(|_| rng.normal()).collect();
        let mut whole: HashMap<Option<usize>, (Vec<f32>, usize)> = HashMap::new();
        model.frozen_backward(&frozen, &reads, &directions, &skips, &mut |at, g, t| {
            whole.insert(at, (g.to_vec(), t));
        });
        let mut parts: HashMap<Option<usize>, Vec<f32>> = HashMap::new();
        let mut heads = std::collections::BTreeSet::new();
        model.frozen_head_backward(&frozen, &reads, &directions, &skips, &mut |at, head, g, _| {
            heads.insert(head);
            let sum = parts.entry(at).or_insert_with(|| vec![0.0; g.len()]);
            sum.iter_mut().zip(g).for_each(|(s, v)| *s += v);
        });
        assert_eq!(heads.len(), 3 * 2, "every block's every head carries a part");
        let (t, c) = (10, 16);
        assert_eq!(whole.len(), 4, "three blocks' outputs and the embeddings");
        for (at, (g, _)) in &whole {
            // Above the top block nothing has crossed positions yet.
            let sum = parts.get(at).cloned().unwrap_or_else(|| vec![0.0; g.len()]);
            for (i, &(_, reader)) in reads.iter().enumerate() {
                for p in (0..t).filter(|&p| p != reader) {
                    for k in 0..c {
                        let (a, b) = (g[(i * t + p) * c + k], sum[(i * t + p) * c + k]);
                        assert!(
                            (a - b).abs() <= 1e-5 * (1.0 + a.abs()),
                            "{at:?}, reader {i}, position {p}: {a} against {b}"
                        );
                    }
                }
            }
        }
    }
}
