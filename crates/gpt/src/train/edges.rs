//! Exact edge patching as a job (`sharing.rs`): every edge of the model's graph patched alone,
//! the edges shared among the trainer's threads and its helpers as an evaluation's batches are.
//! The trainer keeps the last scores, with the step and the plan they were found for.

use super::sharing::no_job;
use super::step::on_threads;
use super::trainable::Trainable;
use super::trainer::Trainer;
use crate::error::{Error, Result};
use crate::words::runs::bug;
use crate::work::edge_plan::{EdgePlan, ScoredEdges};
use crate::work::Work;

impl<M: Trainable> Trainer<M> {
    /// Begins patching every edge of `plan` exactly, shared with `helpers` (see
    /// [`Trainer::begin`]).
    pub fn begin_edges(&mut self, plan: EdgePlan, helpers: &[u32], now_ms: f64) -> Result<super::sharing::Progress> {
        self.abort();
        plan.check()?;
        Ok(self.begin_work(Work::Edges(plan), self.rng.clone(), helpers, now_ms))
    }

    /// The job's edges' scores, kept, at `now_ms`: how many edges they score.
    pub(crate) fn finish_edges(&mut self, now_ms: f64) -> Result<usize> {
        let job = self.job.take().ok_or_else(no_job)?;
        self.settle_copies(&job);
        let Work::Edges(plan) = job.work else {
            return Err(Error::Config(bug("another job is in progress, not edge patching")));
        };
        let scores = plan.scores(job.partials)?;
        let (edges, workers) = (scores.len(), job.helpers + self.workspaces.len());
        let ms = now_ms - job.started_ms;
        self.scored_edges = Some(ScoredEdges { step: self.step, plan, scores, ms, workers });
        Ok(edges)
    }

    /// The scores a finished job left for `plan` at this step, if any.
    pub fn shared_edges(&self, plan: &EdgePlan) -> Option<&ScoredEdges> {
        self.scored_edges.as_ref().filter(|k| k.step == self.step && k.plan == *plan)
    }

    /// Every edge of `plan` patched exactly: the scores a finished job left for this step and
    /// plan, else computed now on the trainer's threads.
    pub fn edge_scores(&self, plan: &EdgePlan) -> Result<Vec<f32>> {
        if let Some(kept) = self.shared_edges(plan) {
            return Ok(kept.scores.clone());
        }
        plan.check()?;
        let model = &self.model;
        let parts = on_threads(&self.workspaces, 0..plan.edges, |edges, _| model.edge_scores(plan, edges));
        let mut scores = Vec::with_capacity(plan.edges);
        for part in parts {
            scores.extend(part?);
        }
        Ok(scores)
    }
}
