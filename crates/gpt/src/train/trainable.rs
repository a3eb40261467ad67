//! What the trainer trains and what it trains on, as two small traits: a [`Trainable`] model (the
//! GPT, or any other model the playground trains) computes a batch's loss and gradients and
//! scores an evaluation batch; [`Batches`] (a text or a task) hands out batches. The trainer
//! (`trainer.rs`) does the rest: the step's plan and shares, the partial-sum tree, clipping, the
//! optimiser, the schedule, the history and the timing, natively on threads and in the page on
//! Web Workers.

use crate::error::{Error, Result};
use crate::llc::Chain;
use crate::params::Params;
use crate::rng::Rng;
use crate::words::runs::bug;
use crate::work::edge_plan::EdgePlan;
use crate::work::llc_plan::LlcPlan;
use crate::work::{Batch, Split};
use crate::workspace::Workspace;
use std::ops::Range;

/// A model the trainer can train: its parameters, and how to compute one batch's loss and
/// gradients and one evaluation batch's score. `&self` throughout, so threads can share one model,
/// each with its own workspace.
pub trait Trainable: Send + Sync {
    /// Every trainable scalar, as the optimiser and the partial sums see them.
    fn params(&self) -> &Params;
    fn params_mut(&mut self) -> &mut Params;
    /// Tokens a batch row holds at most.
    fn block_size(&self) -> usize;
    /// The dropout a training step draws masks for (0: none, and no seed is drawn).
    fn dropout(&self) -> f32;
    fn set_dropout(&mut self, p: f32) -> Result<()>;
    /// The loss of knowing nothing (for a language model a uniform guess over its vocabulary): a
    /// step whose loss is far past it has diverged.
    fn uniform_loss(&self) -> f32;
    /// Runs forward and backward in training mode, with dropout's masks drawn from `masks` when
    /// given, writes `weight` times the gradient of the batch's mean loss into `grads` (every
    /// parameter, flat; left alone when the loss is not finite), and returns the loss.
    fn loss_and_grad(
        &self,
        ws: &Workspace,
        batch: Batch,
        masks: Option<&mut Rng>,
        weight: f32,
        grads: &mut [f32],
    ) -> Result<f32>;
    /// [`Trainable::loss_and_grad`] without dropout, for a caller that reads only the gradients
    /// of the parameters `wanted` marks: a model may skip the others (and leave them zeros), and
    /// start from the stream `wanted` brings ([`Trainable::frozen_stream`] on this batch).
    fn loss_and_grad_of(&self, ws: &Workspace, batch: Batch, wanted: Wanted, grads: &mut [f32]) -> Result<f32> {
        let _ = wanted;
        self.loss_and_grad(ws, batch, None, 1.0, grads)
    }
    /// Where a pass that moves only the parameters `wanted` marks (the flat weights `moves`
    /// marks, within them) may start on `batch`: the stream entering its first block holding one
    /// of them, which the blocks below (frozen) always give. None: from the ids.
    fn frozen_stream(&self, batch: Batch, (wanted, moves): (&[bool], &[bool])) -> Result<Option<Frozen>> {
        let _ = (batch, wanted, moves);
        Ok(None)
    }
    /// An evaluation batch's mean loss, and how many of its rows the model gets exactly right.
    fn score(&self, ws: &Workspace, batch: Batch) -> Result<(f32, usize)>;

    /// Counts a step keeps beside its gradients (a sparse autoencoder's firings per feature):
    /// `loss_and_grad` writes them after the gradients, unweighted; shards add them up as they
    /// add gradients, and [`Trainable::after_step`] gets their sum.
    fn tally_len(&self) -> usize {
        0
    }

    /// Called once a step's update is applied, here and on every helper's copy alike, with the
    /// step's tallies: where a model keeps a constraint on its weights (unit-norm decoder rows)
    /// or counts across steps (how long since each feature fired).
    fn after_step(&mut self, _tallies: &[f32]) {}

    /// What a helper's copy needs beside the weights and the optimiser and cannot work out for
    /// itself (a frozen model the autoencoder reads, its counts across steps): the run sends it,
    /// flat, with its state.
    fn held_parts(&self) -> Vec<&[f32]> {
        vec![]
    }

    /// The same parts, to fill from the run's state.
    fn held_parts_mut(&mut self) -> Result<Vec<&mut [f32]>> {
        Ok(vec![])
    }

    /// The scores of edges `edges` of its graph, each patched alone on `plan`'s pairs (see
    /// `inspect/circuit/`): a language model's parts have edges, other models none.
    fn edge_scores(&self, _plan: &EdgePlan, _edges: Range<usize>) -> Result<Vec<f32>> {
        Err(Error::Config(bug("only a language model's parts have edges to patch")))
    }

    /// Chains `units` of `plan` (see `llc/`), each from the model's weights: a language model's
    /// parts can be restricted to, other models' not.
    fn llc_chains(&self, _plan: &LlcPlan, _units: Range<usize>) -> Result<Vec<Chain>> {
        Err(Error::Config(bug("only a language model's learning coefficient is estimated as shared work")))
    }

    /// Every gradient and tally a step's shard writes.
    fn grad_len(&self) -> usize {
        self.params().count() + self.tally_len()
    }
}

/// Where a pass that moves only some parameters may start: the stream entering block `from`
/// (rows × positions × channels), which the blocks below always give; and when of that block's
/// attention only one head's weights move, what stays of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Frozen {
    pub from: usize,
    pub stream: Vec<f32>,
    pub head: Option<FrozenHead>,
}

/// Of a block whose attention moves only head `head`'s weights: what the other heads and the
/// output projection's bias add to the stream (rows × positions × channels).
#[derive(Clone, Debug, PartialEq)]
pub struct FrozenHead {
    pub head: usize,
    pub others: Vec<f32>,
}

/// The parameters a caller reads the gradients of, and where the pass may start.
pub type Wanted<'a> = (&'a [bool], Option<&'a Frozen>);

/// Where the trainer draws batches from: a text's windows, or a task's problems.
pub trait Batches {
    /// Positions in each row, for a model of `block_size` tokens.
    fn seq_len(&self, block_size: usize) -> usize;
    /// Fills `x` and `y` with `batch` random rows of `split` (`x`'s ids and the targets after
    /// them), drawn with `rng`.
    fn batch(&self, split: Split, batch: usize, block: usize, rng: &mut Rng, x: &mut Vec<u32>, y: &mut Vec<u32>);
    /// Whether an evaluation also counts the rows answered exactly right (a task's accuracy).
    fn scores_answers(&self) -> bool;
}
