//! The LLC's records as shared work: the live record due at an evaluation, and each head's
//! estimate at a live record's kept weights. Their chains run as a job of their own with the
//! helpers (where a record on the run's worker alone kept them waiting); the evaluation, or the
//! heads' job, is done when the record is kept.

use super::training::Watch;
use super::{RecordJob, RecordOf, Run};
use crate::error::{Error, Result};
use crate::train::{Evaluation, Outcome, Progress};
use crate::words::runs::bug;
use crate::work::llc_plan::LlcPlan;

impl<W: Watch> Run<W> {
    /// Once `evaluation` is in: the views' records, then the live LLC record's chains, if one is
    /// due, begun with the evaluation's helpers.
    pub(super) fn after_evaluation(&mut self, evaluation: Evaluation, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        let started_ms = now_ms();
        W::evaluated(self)?;
        let Some(plan) = W::live_llc_plan(self)? else {
            self.trainer.timing.records_ms += now_ms() - started_ms;
            return Progress::done(Outcome::Evaluation(evaluation));
        };
        // The helpers the evaluation was shared with, as the trainer knows them.
        let helpers: Vec<u32> = self.trainer.synced.iter().map(|&(id, _)| id).collect();
        self.begin_record(RecordOf::Evaluation(evaluation), plan, &helpers, started_ms)
    }

    /// Each head's LLC at the earliest live record still waiting for it, shared with `helpers`.
    pub(super) fn begin_heads_llc(&mut self, helpers: &[u32], now_ms: f64) -> Result<Progress> {
        match W::heads_llc_plan(self)? {
            Some((step, plan)) => self.begin_record(RecordOf::Heads { step }, plan, helpers, now_ms),
            None => Progress::done(Outcome::HeadsLlc { left: None }),
        }
    }

    /// Sets the view's estimate aside while the record's chains run.
    fn begin_record(&mut self, of: RecordOf, plan: LlcPlan, helpers: &[u32], now_ms: f64) -> Result<Progress> {
        let kept = self.trainer.kept_llc.take();
        let begun = self.trainer.begin_llc(plan, helpers, now_ms);
        match begun {
            Ok(_) => self.record_job = Some(RecordJob { of, started_ms: now_ms, kept }),
            Err(_) => self.trainer.kept_llc = kept,
        }
        begun
    }

    /// The record's chains are in: the record kept, and its job done.
    pub(super) fn record_done(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        let job = self.record_job.take().ok_or_else(|| Error::Config(bug("no record was under way")))?;
        let record = std::mem::replace(&mut self.trainer.kept_llc, job.kept);
        let missing = || Error::Config(bug("a record's estimates went missing"));
        let estimates = record.ok_or_else(missing)?.estimates;
        match job.of {
            RecordOf::Evaluation(evaluation) => {
                W::live_llc_recorded(self, estimates.into_iter().next().ok_or_else(missing)?)?;
                self.trainer.timing.records_ms += now_ms() - job.started_ms;
                Progress::done(Outcome::Evaluation(evaluation))
            }
            RecordOf::Heads { step } => {
                let left = W::heads_llc_recorded(self, step, estimates)?;
                Progress::done(Outcome::HeadsLlc { left: Some(left) })
            }
        }
    }

    /// Gives the record under way up, if any: the view keeps its estimate.
    pub(super) fn drop_record(&mut self) {
        if let Some(job) = self.record_job.take() {
            self.trainer.kept_llc = job.kept;
        }
    }
}
