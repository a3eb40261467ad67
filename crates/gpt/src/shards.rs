//! Data-parallel training steps whose result does not depend on how many workers compute them.
//!
//! A batch splits into a fixed number of shards, set by the batch size and never by the worker
//! count. Each shard's gradient is computed alone, then the gradients are summed in one canonical
//! order: a balanced binary tree over the shards. A worker that computes a contiguous range of
//! shards sums every whole aligned subtree of its range itself, exactly as the tree would, and
//! hands over only those partial sums; [`combine`] finishes the tree. So one, two, three or more
//! workers (threads natively, Web Workers in the page) produce bit-identical gradients, and with
//! a power-of-two number of workers each hands over a single buffer.

use crate::error::{Error, Result};
use crate::evaluate::EvalPlan;
use crate::model::{Batch, GPT};
use crate::rng::Rng;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The most shards a batch splits into, and so the most workers a step can use.
pub const MAX_SHARDS: usize = 8;

/// The fewest tokens worth a shard of their own. Smaller matrix products and one more gradient
/// to sum per shard cost more than they give: natively, nano-cpu's 768 tokens a step in shards
/// of 96 ran 9% slower on one thread than in one piece, in shards of 192 no slower.
pub const MIN_SHARD_TOKENS: usize = 192;

/// How many shards a batch of `batch` sequences of `block` tokens splits into: the largest power
/// of two (so the tree is perfect) within the batch, [`MAX_SHARDS`] and [`MIN_SHARD_TOKENS`].
pub fn shard_count(batch: usize, block: usize) -> usize {
    let by_size = batch.saturating_mul(block) / MIN_SHARD_TOKENS;
    let cap = batch.min(MAX_SHARDS).min(by_size).max(1);
    1 << cap.ilog2()
}

/// The sequences of shard `s` of `shards`: spread evenly, so that halves, quarters and eighths of
/// the shards hold equal numbers of sequences (as equal as the batch allows).
pub fn shard_rows(batch: usize, shards: usize, s: usize) -> Range<usize> {
    s * batch / shards..(s + 1) * batch / shards
}

/// The contiguous shards worker `k` of `workers` computes; together they cover every shard once.
pub fn worker_shards(shards: usize, workers: usize, k: usize) -> Range<usize> {
    k * shards / workers..(k + 1) * shards / workers
}

/// One step's work as the run draws it: the batch and, when the model has dropout, the seed of
/// every shard's masks. Replicas need nothing else (and the current weights) to compute shards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepPlan {
    /// How many shards the batch splits into: [`shard_count`] of the run's settings.
    pub shards: usize,
    pub batch_size: usize,
    pub block_size: usize,
    /// `batch_size × block_size` token ids, sequence after sequence.
    pub inputs: Vec<u32>,
    /// The ids that follow them.
    pub targets: Vec<u32>,
    pub dropout_seed: Option<u64>,
}

/// What a worker is handed: a training step's shards, or an evaluation's batches. Either way it
/// computes a contiguous range of units ([`Work::units`]) into [`Partial`]s the run adds up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Work {
    Step(StepPlan),
    Evaluation(EvalPlan),
}

impl Work {
    /// The work as JSON, as it travels to other workers.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plans are plain data")
    }

    /// Work from [`Work::to_json`]'s text, as another worker sent it.
    pub fn from_json(text: &str) -> Result<Work> {
        serde_json::from_str(text).map_err(|e| Error::Data(format!("a plan from another worker: {e}")))
    }

    /// How many units of work it splits into: shards of a step, batches of an evaluation.
    pub fn units(&self) -> usize {
        match self {
            Work::Step(plan) => plan.shards,
            Work::Evaluation(plan) => plan.batches,
        }
    }

    /// Units `range` computed with `model`: buffers from `ws` (one per thread), gradients from
    /// `grads` (shared by the threads).
    pub fn partials(
        &self,
        model: &GPT,
        range: Range<usize>,
        ws: &Workspace,
        grads: &Workspace,
    ) -> Result<Vec<Partial>> {
        match self {
            Work::Step(plan) => model.shard_partials(plan, range, ws, grads),
            Work::Evaluation(plan) => plan.partials(model, range, ws),
        }
    }
}

impl StepPlan {
    /// Checks a plan that came from elsewhere (another worker) before computing with it.
    fn check(&self) -> Result<()> {
        let n = self.batch_size.checked_mul(self.block_size);
        let shards_ok = self.shards.is_power_of_two() && self.shards <= self.batch_size;
        if !shards_ok || n != Some(self.inputs.len()) || n != Some(self.targets.len()) {
            return Err(Error::Data("a step plan's batch does not match its sizes".into()));
        }
        Ok(())
    }
}

/// The weighted sum of the losses and gradients of shards `first..first + count`: an aligned
/// subtree of the canonical tree (`count` a power of two dividing `first`).
#[derive(Clone, Debug, PartialEq)]
pub struct Partial {
    pub first: usize,
    pub count: usize,
    /// The loss of these shards, weighted by their share of the batch's counted targets.
    pub loss: f64,
    /// An evaluation batch's rows the model got exactly right (0 for a step).
    pub exact: usize,
    /// Every parameter's gradient, flat.
    pub grads: Vec<f32>,
}

impl Partial {
    /// Whether `self` and `right` are the two children of one node, `self` on the left.
    fn is_left_sibling_of(&self, right: &Partial) -> bool {
        self.count == right.count && self.first + self.count == right.first && self.first.is_multiple_of(2 * self.count)
    }

    /// The parent of `self` (left) and `right`; the sum is always left + right.
    fn merge(mut self, right: Partial, ws: &Workspace) -> Partial {
        self.grads.iter_mut().zip(&right.grads).for_each(|(a, b)| *a += b);
        self.loss += right.loss;
        self.exact += right.exact;
        self.count *= 2;
        ws.recycle(right.grads);
        self
    }
}

/// Pushes `next` onto `stack`, merging it with every finished left sibling below it.
fn push_merging(stack: &mut Vec<Partial>, mut next: Partial, ws: &Workspace) {
    while stack.last().is_some_and(|left| left.is_left_sibling_of(&next)) {
        let left = stack.pop().expect("checked above");
        next = left.merge(next, ws);
    }
    stack.push(next);
}

impl GPT {
    /// Computes shards `range` of `plan` and returns the sums of the whole aligned subtrees in it,
    /// in order. Passes take buffers from `ws` (one per thread); gradients from `grads`, a pool
    /// the threads share, so a buffer one thread fills and another merges comes back to all.
    pub fn shard_partials(
        &self,
        plan: &StepPlan,
        range: Range<usize>,
        ws: &Workspace,
        grads: &Workspace,
    ) -> Result<Vec<Partial>> {
        plan.check()?;
        let (shards, b, t) = (plan.shards, plan.batch_size, plan.block_size);
        if range.end > shards || range.is_empty() {
            return Err(Error::Data(format!("shards {range:?} are not among the {shards} of this step")));
        }
        let mut stack = Vec::new();
        let pinned = ws.pin(&self.params().values);
        // Each shard's mean loss counts in proportion to its counted targets, so the sum is the
        // batch's mean over them (for text, every target: the shard's share of the rows).
        let counted = |v: &[u32]| v.iter().filter(|&&t| t != crate::data::IGNORE).count();
        let batch_counted = counted(&plan.targets).max(1);
        for s in range {
            let rows = shard_rows(b, shards, s);
            let n = rows.len();
            let cells = rows.start * t..rows.end * t;
            let idx: Vec<usize> = plan.inputs[cells.clone()].iter().map(|&i| i as usize).collect();
            let targets = crate::data::targets(&plan.targets[cells.clone()]);
            let mut dropout =
                plan.dropout_seed.map(|seed| Rng::new(seed ^ (s as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            let weight = counted(&plan.targets[cells]) as f32 / batch_counted as f32;
            let mut leaf = grads.scratch(self.params().count()); // backward overwrites all of it
            let batch = Batch { idx: &idx, targets: &targets, b: n, t };
            let loss = self.loss_and_grad(ws, batch, dropout.as_mut(), weight, &mut leaf);
            let loss = loss.inspect_err(|_| grads.recycle(std::mem::take(&mut leaf)))?;
            push_merging(
                &mut stack,
                Partial { first: s, count: 1, loss: loss as f64 * weight as f64, exact: 0, grads: leaf },
                grads,
            );
        }
        drop(pinned);
        ws.trim();
        Ok(stack)
    }
}

/// A worker that computes shards and evaluation batches and nothing else: a copy of the model's
/// weights (sent afresh each time) and its own buffers. It needs no text, tokenizer or optimiser:
/// the plan carries the batches, and the run that planned it adds up what comes back.
pub struct Replica {
    model: GPT,
    ws: Workspace,
    grads: Workspace,
    /// The work last given, for the chunks of an evaluation that come without it.
    work: Option<Work>,
}

impl Replica {
    /// A replica of a model shaped by `config`; its weights come with [`Replica::set_weights`].
    pub fn new(config: crate::GPTConfig) -> Result<Replica> {
        let (ws, grads) = (Workspace::default(), Workspace::default());
        Ok(Replica { model: GPT::new(config, 0)?, ws, grads, work: None })
    }

    /// Every weight, from a flat buffer of `len` values piece by piece (see
    /// [`Params::read_flat`](crate::params::Params::read_flat)).
    pub fn set_weights(&mut self, len: usize, read: impl FnMut(usize, &mut [f32])) -> Result<()> {
        self.model.params_mut().read_flat(len, read)
    }

    /// Computes units `range` (see [`Work::partials`]) of the work `plan` describes, as
    /// [`Work::to_json`] wrote it in another worker; without a plan, of the work last given: an
    /// evaluation's batches come a chunk at a time, and its plan is long to read.
    pub fn compute(&mut self, plan: Option<&str>, range: Range<usize>) -> Result<Vec<Partial>> {
        if let Some(plan) = plan {
            self.work = Some(Work::from_json(plan)?);
        }
        let work =
            self.work.as_ref().ok_or_else(|| Error::Config("no work to compute: the first chunk brings it".into()))?;
        work.partials(&self.model, range, &self.ws, &self.grads)
    }

    /// Trainable scalars: the length of a flat buffer of weights or gradients.
    pub fn len(&self) -> usize {
        self.model.params().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes back a partial's buffer once it has been sent.
    pub fn recycle(&self, partial: Partial) {
        self.grads.recycle(partial.grads);
    }
}

/// The root of the tree over `shards` shards from partial sums that cover them all, each once,
/// in any order; or what is missing or overlapping.
pub fn combine(mut partials: Vec<Partial>, shards: usize, ws: &Workspace) -> Result<Partial> {
    partials.sort_by_key(|p| p.first);
    let mut stack = Vec::new();
    let mut next_shard = 0;
    for p in partials {
        let aligned = p.count.is_power_of_two() && p.first.is_multiple_of(p.count);
        if p.first != next_shard || !aligned || p.first + p.count > shards {
            return Err(Error::Data(format!(
                "partial gradients do not tile the {shards} shards: got shards {}..{} after {next_shard}",
                p.first,
                p.first + p.count
            )));
        }
        next_shard += p.count;
        push_merging(&mut stack, p, ws);
    }
    match stack.pop() {
        Some(root) if stack.is_empty() && root.count == shards => Ok(root),
        _ => Err(Error::Data(format!("partial gradients cover {next_shard} of the {shards} shards"))),
    }
}

#[cfg(test)]
mod tests;
