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

    /// The stream entering the first block holding a wanted parameter, and what stays of its
    /// attention when only one head there moves (`frozen_part.rs`).
    fn frozen_stream(&self, batch: Batch, wanted: (&[bool], &[bool])) -> Result<Option<Frozen>> {
        self.frozen_part(batch, wanted)
    }

    fn score(&self, ws: &Workspace, batch: Batch) -> Result<(f32, usize)> {
        self.score_in(ws, batch.idx, batch.targets, batch.b, batch.t)
    }

    fn edge_scores(&self, plan: &EdgePlan, edges: Range<usize>) -> Result<Vec<f32>> {
        super::edge_patching::plan_scores(self, plan, edges)
    }

    /// Each chain on a copy of the model, its own part's weights moving.
    fn llc_chains(&self, plan: &LlcPlan, units: Range<usize>) -> Result<Vec<Chain>> {
        let mut model = self.frozen_copy()?;
        if let Some(start) = &plan.start {
            model.params_mut().read_flat(start.len(), |at, part| part.copy_from_slice(&start[at..at + part.len()]))?;
        }
        let mut landscape = ModelLandscape::on(model, plan.batches.clone(), plan.rows, plan.t)?;
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
            Some(frozen) => self.resume_frozen(&mut g, frozen, (b, t), &mut extras)?,
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
