//! A worker's share of a job, computed with any [`Trainable`] model: a step's shards (each shard's
//! loss and gradient, summed over the whole aligned subtrees of the share) or an evaluation's
//! batches (each batch's loss and rows exactly right) or the edges to patch exactly (each edge's
//! score) or the learning coefficient's chains (each chain's losses). The run's threads and every
//! helper compute with this code, so the partial sums are the same wherever they are computed.

use super::trainable::Trainable;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::words::runs::bug;
use crate::work::edge_plan::EdgePlan;
use crate::work::llc_plan::LlcPlan;
use crate::work::{push_merging, shard_rows, targets, Batch, EvalPlan, Partial, StepPlan, Work, IGNORE};
use crate::workspace::Workspace;
use std::ops::Range;

/// Units `range` of `work` computed with `model`: buffers from `ws` (one per thread), gradients
/// from `grads` (a pool the threads share).
pub fn partials<M: Trainable>(
    model: &M,
    work: &Work,
    range: Range<usize>,
    ws: &Workspace,
    grads: &Workspace,
) -> Result<Vec<Partial>> {
    match work {
        Work::Step(plan) => shard_partials(model, plan, range, ws, grads),
        Work::Evaluation(plan) => batch_scores(model, plan, range, ws),
        Work::Edges(plan) => edge_partials(model, plan, range),
        Work::Llc(plan) => chain_partials(model, plan, range),
    }
}

/// Computes shards `range` of `plan` and returns the sums of the whole aligned subtrees in it,
/// in order. A buffer one thread fills and another merges comes back to all through `grads`.
fn shard_partials<M: Trainable>(
    model: &M,
    plan: &StepPlan,
    range: Range<usize>,
    ws: &Workspace,
    grads: &Workspace,
) -> Result<Vec<Partial>> {
    plan.check()?;
    let (shards, b, t) = (plan.shards, plan.batch_size, plan.block_size);
    if range.end > shards || range.is_empty() {
        return Err(Error::Data(bug(format!("shards {range:?} are not among the {shards} of this step"))));
    }
    let mut stack = Vec::new();
    let pinned = ws.pin(&model.params().values);
    // Each shard's mean loss counts in proportion to its counted targets, so the sum is the
    // batch's mean over them (for text, every target: the shard's share of the rows).
    let counted = |v: &[u32]| v.iter().filter(|&&t| t != IGNORE).count();
    let batch_counted = counted(&plan.targets).max(1);
    for s in range {
        let rows = shard_rows(b, shards, s);
        let n = rows.len();
        let cells = rows.start * t..rows.end * t;
        let idx: Vec<usize> = plan.inputs[cells.clone()].iter().map(|&i| i as usize).collect();
        let targets = targets(&plan.targets[cells.clone()]);
        let mut dropout =
            plan.dropout_seed.map(|seed| Rng::new(seed ^ (s as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        let weight = counted(&plan.targets[cells]) as f32 / batch_counted as f32;
        let mut leaf = grads.scratch(model.grad_len()); // backward overwrites all of it
        let batch = Batch { idx: &idx, targets: &targets, b: n, t };
        let loss = model.loss_and_grad(ws, batch, dropout.as_mut(), weight, &mut leaf);
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

/// The loss of each batch in `range` of an evaluation, and how many of its rows the model gets
/// exactly right, as one-batch partials without gradients.
fn batch_scores<M: Trainable>(model: &M, plan: &EvalPlan, range: Range<usize>, ws: &Workspace) -> Result<Vec<Partial>> {
    plan.check()?;
    if range.end > plan.batches || range.is_empty() {
        return Err(Error::Data(bug(format!(
            "batches {range:?} are not among the {} of this evaluation",
            plan.batches
        ))));
    }
    let (b, t) = (plan.batch_size, plan.block_size);
    let pinned = ws.pin(&model.params().values);
    fn batch(v: &[u32], i: usize, n: usize) -> &[u32] {
        &v[i * n..(i + 1) * n]
    }
    let partials = range
        .map(|i| {
            let inputs: Vec<usize> = batch(&plan.inputs, i, b * t).iter().map(|&id| id as usize).collect();
            let targets = targets(batch(&plan.targets, i, b * t));
            let (loss, exact) = model.score(ws, Batch { idx: &inputs, targets: &targets, b, t })?;
            Ok(Partial { first: i, count: 1, loss: loss as f64, exact, grads: Vec::new() })
        })
        .collect();
    drop(pinned);
    ws.trim();
    partials
}

/// Edges `range` patched exactly, each edge's score as a one-edge partial.
fn edge_partials<M: Trainable>(model: &M, plan: &EdgePlan, range: Range<usize>) -> Result<Vec<Partial>> {
    plan.check()?;
    if range.end > plan.edges || range.is_empty() {
        return Err(Error::Data(bug(format!("edges {range:?} are not among the {} of this graph", plan.edges))));
    }
    let scores = model.edge_scores(plan, range.clone())?;
    Ok(range
        .zip(scores)
        .map(|(e, s)| Partial { first: e, count: 1, loss: s as f64, exact: 0, grads: vec![] })
        .collect())
}

/// Chains `range` of the learning coefficient's plan, each as a one-chain partial.
pub(crate) fn chain_partials<M: Trainable>(model: &M, plan: &LlcPlan, range: Range<usize>) -> Result<Vec<Partial>> {
    plan.check(&range)?;
    let chains = model.llc_chains(plan, range.clone())?;
    Ok(range.zip(chains).map(|(unit, chain)| plan.partial(unit, chain)).collect())
}
