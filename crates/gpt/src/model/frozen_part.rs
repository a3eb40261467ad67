//! A pass that moves only some weights (a refined learning coefficient's chain) starts where they
//! start: from the stream entering the lowest block holding one, kept once per batch. When of that
//! block's attention only one head moves, the pass computes that head alone, the other heads'
//! output kept too: a head's chain then skips three quarters of its layer's attention (with four
//! heads), forward and backward.

use super::edits::{given, Edit, Site};
use super::extras::Extras;
use super::gpt::GPT;
use super::weight_parts::WeightPart;
use crate::autograd::{Graph, Var};
use crate::error::{Error, Result};
use crate::train::{Frozen, FrozenHead};
use crate::words::runs::bug;
use crate::work::Batch;

impl GPT {
    /// Where a pass that moves only the parameters `wanted` marks (`moves`, weight by weight) may
    /// start on `batch`: the embeddings (and the output head tied to them) count as below every
    /// block, the final norm as above the last. None: from the ids, which costs no more.
    pub(super) fn frozen_part(&self, batch: Batch, (wanted, moves): (&[bool], &[bool])) -> Result<Option<Frozen>> {
        let layers = self.config().n_layer;
        let place = |name: &str| match name.strip_prefix("transformer.h.") {
            Some(rest) => rest.split('.').next().and_then(|l| l.parse::<usize>().ok()).map_or(0, |l| l + 1),
            None if name.starts_with("transformer.ln_f.") => layers + 1,
            None => 0,
        };
        let names = self.params().names.iter();
        let lowest = names.zip(wanted).filter(|(_, &w)| w).map(|(n, _)| place(n)).min().unwrap_or(0);
        let Some(from) = lowest.checked_sub(1) else { return Ok(None) };
        let head = self.lone_head(from, moves)?;
        if from == 0 && head.is_none() {
            return Ok(None);
        }
        let Batch { idx, b, t, .. } = batch;
        let mut trace = self.trace_edited(idx, b, t, &[])?;
        let stream = std::mem::take(&mut trace.residual[from]);
        let head = match head {
            Some(head) => Some(self.frozen_head(from, head, &stream, (b, t))?),
            None => None,
        };
        Ok(Some(Frozen { from, stream, head }))
    }

    /// The head of block `layer` whose weights are the only ones of its attention and its norm
    /// that move, if one is.
    fn lone_head(&self, layer: usize, moves: &[bool]) -> Result<Option<usize>> {
        if layer >= self.config().n_layer {
            return Ok(None);
        }
        let params = self.params();
        let prefix = format!("transformer.h.{layer}.");
        let attention = params.flat_parts().zip(&params.names).filter(|(_, name)| {
            name.strip_prefix(&prefix).is_some_and(|rest| rest.starts_with("attn.") || rest.starts_with("ln_1."))
        });
        let moving: Vec<usize> =
            attention.flat_map(|((at, part), _)| (at..at + part.len()).filter(|&i| moves[i])).collect();
        if moving.is_empty() {
            return Ok(None);
        }
        for head in 0..self.config().n_head {
            let own = self.part_mask(WeightPart::Head { layer, head })?.unwrap_or_default();
            if moving.iter().all(|&i| own[i]) {
                return Ok(Some(head));
            }
        }
        Ok(None)
    }

    /// What block `layer`'s attention keeps while only head `head` moves, from `stream` (the one
    /// entering it): its output with that head's knocked out.
    fn frozen_head(&self, layer: usize, head: usize, stream: &[f32], (b, t): (usize, usize)) -> Result<FrozenHead> {
        let c = self.config().n_embd;
        let block = &self.blocks[layer];
        let mut g = Graph::new(&self.params().values, &self.workspace);
        let x = given(&mut g, &[b, t, c], stream);
        let normed = block.ln_1.forward(&mut g, x);
        let without = [Edit { site: Site::Head { layer, head }, with: vec![0.0; t * c / self.config().n_head] }];
        let others = block.attn.forward(&mut g, normed, &[], &mut Extras::eval(&without, None));
        Ok(FrozenHead { head, others: g.value(others).as_slice().expect("standard layout").to_vec() })
    }

    /// The logits of a pass from `frozen`, recorded into `g` with `extras`.
    pub(super) fn resume_frozen(
        &self,
        g: &mut Graph,
        frozen: &Frozen,
        (b, t): (usize, usize),
        extras: &mut Extras,
    ) -> Result<Var> {
        let Some(head) = &frozen.head else { return self.resume(g, (frozen.from, &frozen.stream), (b, t), extras) };
        let c = self.config().n_embd;
        let n = b * t * c;
        let fits = frozen.stream.len() == n && head.others.len() == n;
        if frozen.from >= self.config().n_layer || head.head >= self.config().n_head || !fits {
            return Err(Error::Data(bug(format!(
                "a kept head {} of layer {} does not fit this model and batch",
                head.head + 1,
                frozen.from + 1
            ))));
        }
        let x = given(g, &[b, t, c], &frozen.stream);
        let x = self.blocks[frozen.from].forward_head(g, x, head, extras);
        Ok(self.forward_from(g, x, frozen.from + 1, extras))
    }
}

#[cfg(test)]
mod tests {
    use crate::model::WeightPart;
    use crate::params::Params;
    use crate::train::Trainable;
    use crate::work::Batch;
    use crate::workspace::Workspace;
    use crate::{GPTConfig, GPT};

    const BATCH: Batch<'static> =
        Batch { idx: &[3, 1, 4, 1, 5, 9, 2, 6], targets: &[1, 4, 1, 5, 9, 2, 6, 5], b: 2, t: 4 };

    /// Two small models (the second with RoPE, QK-norm and biases), each with its whole pass's
    /// loss and gradients on [`BATCH`].
    fn models() -> Vec<(GPT, f32, Vec<f32>)> {
        let shape =
            GPTConfig { vocab_size: 11, block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, ..GPTConfig::default() };
        let configs = [shape.clone(), GPTConfig { rope: true, qk_norm: true, bias: true, ..shape }];
        let whole = |model: GPT| {
            let mut grads = vec![0.0; model.params().count()];
            let loss = model.loss_and_grad(&Workspace::default(), BATCH, None, 1.0, &mut grads).unwrap();
            (model, loss, grads)
        };
        configs.into_iter().map(|config| whole(GPT::new(config, 5).unwrap())).collect()
    }

    /// The parameters holding a weight `moves` marks.
    fn wanted(params: &Params, moves: &[bool]) -> Vec<bool> {
        params.flat_parts().map(|(at, part)| moves[at..at + part.len()].contains(&true)).collect()
    }

    #[test]
    fn only_the_wanted_gradients_and_they_are_the_whole_passes_bit_for_bit_from_the_frozen_stream_too() {
        for (model, loss, whole) in models() {
            let (ws, params) = (Workspace::default(), model.params());
            // The forward pass alone (the LLC's L(w*)) reads the same loss.
            assert_eq!(model.score(&ws, BATCH).unwrap().0, loss);
            let names = [
                "transformer.h.1.attn.c_attn.weight",
                "transformer.h.0.mlp.c_fc.weight",
                "transformer.wte.weight",
                "transformer.ln_f.weight",
            ];
            // Every weight of each parameter wanted moves.
            let moves = |wanted: &[bool]| -> Vec<bool> {
                params.flat_parts().zip(wanted).flat_map(|((_, part), &w)| vec![w; part.len()]).collect()
            };
            let masks = names.map(|name| params.names.iter().map(|n| n == name).collect::<Vec<bool>>());
            // Where each pass may start: layer 2's block, none (layer 1's, the first), none (the
            // embeddings), after the last block.
            let starts: Vec<Option<usize>> =
                masks.iter().map(|m| model.frozen_stream(BATCH, (m, &moves(m))).unwrap().map(|f| f.from)).collect();
            assert_eq!(starts, [Some(1), None, None, Some(2)]);
            for wanted in masks.iter().chain([&vec![false; params.names.len()]]) {
                let frozen = model.frozen_stream(BATCH, (wanted, &moves(wanted))).unwrap();
                assert!(frozen.as_ref().is_none_or(|f| f.head.is_none()), "every head of the layer moves");
                let mut grads = vec![f32::NAN; params.count()];
                assert_eq!(model.loss_and_grad_of(&ws, BATCH, (wanted, frozen.as_ref()), &mut grads).unwrap(), loss);
                for ((at, part), &want) in params.flat_parts().zip(wanted) {
                    let (got, all) = (&grads[at..at + part.len()], &whole[at..at + part.len()]);
                    if want {
                        assert_eq!(got, all);
                    } else {
                        assert!(got.iter().all(|&g| g == 0.0));
                    }
                }
            }
        }
    }

    #[test]
    fn a_lone_heads_pass_is_the_whole_pass_but_for_rounding() {
        for (model, loss, whole) in models() {
            let (ws, params) = (Workspace::default(), model.params());
            let mask = |part| model.part_mask(part).unwrap().unwrap();
            let either = |a: Vec<bool>, b: Vec<bool>| a.iter().zip(&b).map(|(a, b)| a | b).collect::<Vec<bool>>();
            for (layer, head) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let own = mask(WeightPart::Head { layer, head });
                // The head alone, and with its block's MLP (above the attention: computed as ever).
                for moves in [own.clone(), either(own.clone(), mask(WeightPart::Mlp { layer }))] {
                    let wanted = wanted(params, &moves);
                    let frozen = model.frozen_stream(BATCH, (&wanted, &moves)).unwrap().unwrap();
                    assert_eq!((frozen.from, frozen.head.as_ref().map(|h| h.head)), (layer, Some(head)));
                    let mut grads = vec![f32::NAN; params.count()];
                    let got = model.loss_and_grad_of(&ws, BATCH, (&wanted, Some(&frozen)), &mut grads).unwrap();
                    assert!((got - loss).abs() <= 1e-6 * loss, "L{}H{}: {got} vs {loss}", layer + 1, head + 1);
                    for (i, (&g, &w)) in grads.iter().zip(&whole).enumerate() {
                        if moves[i] {
                            assert!((g - w).abs() <= 1e-6 + 1e-4 * w.abs(), "weight {i}: {g} vs {w}");
                        }
                    }
                }
            }
            // Two heads of a block move: the pass takes the whole attention.
            let two =
                either(mask(WeightPart::Head { layer: 1, head: 0 }), mask(WeightPart::Head { layer: 1, head: 1 }));
            assert_eq!(model.frozen_stream(BATCH, (&wanted(params, &two), &two)).unwrap().unwrap().head, None);
        }
    }
}
