//! The GPT as the trainer trains it (`train/`): a batch's loss and gradients, an evaluation
//! batch's score, exact patching's edges (`edge_patching.rs`) and the learning coefficient's
//! chains, each a unit of a shared job.

use super::extras::Extras;
use super::gpt::{scalar, uniform_loss, GPT};
use super::layers::Dropout;
use super::weight_parts::WeightPart;
use crate::autograd::Graph;
use crate::error::{Error, Result};
use crate::llc::{chain, Chain};
use crate::params::Params;
use crate::rng::Rng;
use crate::train::ModelLandscape;
use crate::train::{Frozen, Trainable, Wanted};
use crate::words::runs::bug;
use crate::work::edge_plan::EdgePlan;
use crate::work::llc_plan::LlcPlan;
use crate::work::Batch;
use crate::workspace::Workspace;
use std::ops::Range;

/// The GPT as the trainer trains it.
impl Trainable for GPT {
    fn params(&self) -> &Params {
        GPT::params(self)
    }

    fn params_mut(&mut self) -> &mut Params {
        GPT::params_mut(self)
    }

    fn block_size(&self) -> usize {
        self.config().block_size
    }

    fn dropout(&self) -> f32 {
        self.config().dropout
    }

    fn set_dropout(&mut self, p: f32) -> Result<()> {
        GPT::set_dropout(self, p)
    }

    fn uniform_loss(&self) -> f32 {
        uniform_loss(self.config().vocab_size)
    }

    /// Forward and backward in training mode, with dropout when `dropout` brings its masks' stream.
    fn loss_and_grad(
        &self,
        ws: &Workspace,
        batch: Batch,
        dropout: Option<&mut Rng>,
        weight: f32,
        grads: &mut [f32],
    ) -> Result<f32> {
        self.loss_and_grad_wanting(ws, batch, (dropout, weight), (None, None), grads)
    }

    /// Skips the backward pass below the lowest wanted parameter and the unwanted weights' own
    /// gradients, and the forward pass below `frozen`'s block.
    fn loss_and_grad_of(
        &self,
        ws: &Workspace,
        batch: Batch,
        (wanted, frozen): Wanted,
        grads: &mut [f32],
    ) -> Result<f32> {
        self.loss_and_grad_wanting(ws, batch, (None, 1.0), (Some(wanted), frozen), grads)
    }

    /// The stream entering the first block holding a wanted parameter, when one is above the
    /// first: the embeddings (and the output head tied to them) count as below every block, the
    /// final norm as above the last.
    fn frozen_stream(&self, batch: Batch, wanted: &[bool]) -> Result<Option<Frozen>> {
        let layers = self.config().n_layer;
        let block = |name: &str| match name.strip_prefix("transformer.h.") {
            Some(rest) => rest.split('.').next().and_then(|l| l.parse().ok()).unwrap_or(0),
            None if name.starts_with("transformer.ln_f.") => layers,
            None => 0,
        };
        let names = GPT::params(self).names.iter();
        let first = names.zip(wanted).filter(|(_, &w)| w).map(|(n, _)| block(n)).min().unwrap_or(0);
        if first == 0 {
            return Ok(None);
        }
        let mut trace = self.trace_edited(batch.idx, batch.b, batch.t, &[])?;
        Ok(Some((first, std::mem::take(&mut trace.residual[first]))))
    }

    fn score(&self, ws: &Workspace, batch: Batch) -> Result<(f32, usize)> {
        self.score_in(ws, batch.idx, batch.targets, batch.b, batch.t)
    }

    fn edge_scores(&self, plan: &EdgePlan, edges: Range<usize>) -> Result<Vec<f32>> {
        super::edge_patching::plan_scores(self, plan, edges)
    }

    /// Each chain on a copy of the model, its own part's weights moving.
    fn llc_chains(&self, plan: &LlcPlan, units: Range<usize>) -> Result<Vec<Chain>> {
        let mut landscape = ModelLandscape::on(self.frozen_copy()?, plan.batches.clone(), plan.rows, plan.t)?;
        let w_star = landscape.weights();
        units
            .map(|unit| {
                let (label, c) = plan.unit(unit);
                let part = WeightPart::parse(label)
                    .ok_or_else(|| Error::Data(bug(format!("a plan names a part the model lacks: {label:?}"))))?;
                let mask = self.part_mask(part)?;
                Ok(chain(&mut landscape, &w_star, mask.as_deref(), &plan.config, (plan.nbeta as f32, c), None))
            })
            .collect()
    }
}

impl GPT {
    /// `loss_and_grad` giving only the gradients of the parameters `wanted` marks, or every one,
    /// from the ids or from a `frozen` stream.
    fn loss_and_grad_wanting(
        &self,
        ws: &Workspace,
        batch: Batch,
        (dropout, weight): (Option<&mut Rng>, f32),
        (wanted, frozen): (Option<&[bool]>, Option<&Frozen>),
        grads: &mut [f32],
    ) -> Result<f32> {
        let Batch { idx, targets, b, t } = batch;
        self.check_input(idx, b, t)?;
        self.check_targets(targets, b, t)?;
        if grads.len() != GPT::params(self).count() {
            return Err(Error::Data(bug(format!(
                "expected {} gradients, got {}",
                GPT::params(self).count(),
                grads.len()
            ))));
        }
        let mut g = Graph::new(&GPT::params(self).values, ws);
        if let Some(wanted) = wanted {
            g = g.wanting(wanted);
        }
        let dropout = dropout.map(|rng| Dropout { p: self.config().dropout, rng });
        let mut extras = Extras { dropout, edits: &[], hooks: None, rewire: None };
        let logits = match frozen {
            Some((from, stream)) => self.resume(&mut g, (*from, stream), (b, t), &mut extras)?,
            None => self.forward(&mut g, idx, b, t, &mut extras),
        };
        let loss = g.cross_entropy(logits, targets);
        let value = scalar(g.value(loss));
        if value.is_finite() {
            g.backward(loss, weight, &mut GPT::params(self).views_mut(grads));
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use crate::train::Trainable;
    use crate::work::Batch;
    use crate::workspace::Workspace;
    use crate::{GPTConfig, GPT};

    #[test]
    fn only_the_wanted_gradients_and_they_are_the_whole_passes_bit_for_bit_from_the_frozen_stream_too() {
        let shape =
            GPTConfig { vocab_size: 11, block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, ..GPTConfig::default() };
        for config in [shape.clone(), GPTConfig { rope: true, qk_norm: true, ..shape }] {
            let model = GPT::new(config, 5).unwrap();
            let (idx, targets) = ([3, 1, 4, 1, 5, 9, 2, 6], [1, 4, 1, 5, 9, 2, 6, 5]);
            let batch = Batch { idx: &idx, targets: &targets, b: 2, t: 4 };
            let ws = Workspace::default();
            let params = model.params();
            let mut whole = vec![0.0; params.count()];
            let loss = model.loss_and_grad(&ws, batch, None, 1.0, &mut whole).unwrap();
            // The forward pass alone (the LLC's L(w*)) reads the same loss.
            assert_eq!(model.score(&ws, batch).unwrap().0, loss);
            let names = [
                "transformer.h.1.attn.c_attn.weight",
                "transformer.h.0.mlp.c_fc.weight",
                "transformer.wte.weight",
                "transformer.ln_f.weight",
            ];
            let masks = names.map(|name| params.names.iter().map(|n| n == name).collect::<Vec<bool>>());
            // Where each pass may start: layer 2's block, none (layer 1's, the first), none (the
            // embeddings), after the last block.
            let starts: Vec<Option<usize>> =
                masks.iter().map(|m| model.frozen_stream(batch, m).unwrap().map(|(from, _)| from)).collect();
            assert_eq!(starts, [Some(1), None, None, Some(2)]);
            for wanted in masks.iter().chain([&vec![false; params.names.len()]]) {
                let frozen = model.frozen_stream(batch, wanted).unwrap();
                let mut grads = vec![f32::NAN; params.count()];
                assert_eq!(model.loss_and_grad_of(&ws, batch, (wanted, frozen.as_ref()), &mut grads).unwrap(), loss);
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
}
