//! The learning coefficient's chains as a job (`sharing.rs`): each chain of each part's estimate
//! computed alone, shared among the trainer's threads and its helpers as an evaluation's batches
//! are. The trainer keeps the last estimates, with the step and the plan they were made for.

use super::sharing::no_job;
use super::step::on_threads;
use super::trainable::Trainable;
use super::trainer::Trainer;
use super::units::chain_partials;
use crate::error::{Error, Result};
use crate::llc::Llc;
use crate::words::runs::bug;
use crate::work::llc_plan::{KeptLlc, LlcPlan};
use crate::work::Work;

impl<M: Trainable> Trainer<M> {
    /// Begins the chains of `plan`, shared with `helpers` (see [`Trainer::begin`]).
    pub fn begin_llc(&mut self, plan: LlcPlan, helpers: &[u32], now_ms: f64) -> Result<super::sharing::Progress> {
        self.abort();
        plan.check(&(0..plan.units()))?;
        Ok(self.begin_work(Work::Llc(plan), self.rng.clone(), helpers, now_ms))
    }

    /// The job's estimates, kept, at `now_ms`: how many parts they estimate.
    pub(crate) fn finish_llc(&mut self, now_ms: f64) -> Result<usize> {
        let job = self.job.take().ok_or_else(no_job)?;
        self.settle_copies(&job);
        let Work::Llc(plan) = job.work else {
            return Err(Error::Config(bug("another job is in progress, not the learning coefficient's chains")));
        };
        let estimates = plan.estimates(job.partials)?;
        let (count, workers) = (estimates.len(), job.helpers + self.workspaces.len());
        let ms = now_ms - job.started_ms;
        self.kept_llc = Some(KeptLlc { step: self.step, plan, estimates, ms, workers });
        Ok(count)
    }

    /// The estimates a finished job left, if any: the last, whatever step and plan they were for.
    pub fn kept_llc(&self) -> Option<&KeptLlc> {
        self.kept_llc.as_ref()
    }

    /// Each part's estimate of `plan`: those a finished job left for this step and plan, else
    /// computed now on the trainer's threads.
    pub fn llc(&self, plan: &LlcPlan) -> Result<Vec<Llc>> {
        if let Some(kept) = self.kept_llc.as_ref().filter(|k| k.step == self.step && k.plan == *plan) {
            return Ok(kept.estimates.clone());
        }
        self.llc_of(&self.model, plan)
    }

    /// Each part's estimate of `plan` for `model` (this trainer's, or a copy at other weights),
    /// computed now on the trainer's threads.
    pub fn llc_of(&self, model: &M, plan: &LlcPlan) -> Result<Vec<Llc>> {
        let units = 0..plan.units();
        plan.check(&units)?;
        let parts = on_threads(&self.workspaces, units, |chains, _| chain_partials(model, plan, chains));
        let mut partials = Vec::with_capacity(plan.units());
        for part in parts {
            partials.extend(part?);
        }
        plan.estimates(partials)
    }
}
