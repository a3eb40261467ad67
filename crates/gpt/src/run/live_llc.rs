//! The live LLC record as shared work: once an evaluation is in and a record is due, its chains
//! run as a job of their own with the evaluation's helpers (a chain each, where a record on the
//! run's worker alone kept them waiting), and the evaluation is done when the record is kept.

use super::training::Watch;
use super::Run;
use crate::error::{Error, Result};
use crate::train::{Evaluation, Outcome, Progress};
use crate::words::runs::bug;
use crate::work::llc_plan::KeptLlc;

/// An evaluation whose live LLC record's chains are under way: the evaluation, when its records
/// began, and the estimate the view kept from before (a record is not the view's estimate).
pub(crate) struct LiveRecord {
    evaluation: Evaluation,
    started_ms: f64,
    kept: Option<KeptLlc>,
}

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
        let kept = self.trainer.kept_llc.take();
        self.live_record = Some(LiveRecord { evaluation, started_ms, kept });
        self.trainer.begin_llc(plan, &helpers, started_ms)
    }

    /// The live record's chains are in: the record kept, and the evaluation done.
    pub(super) fn live_record_done(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        let live = self.live_record.take().ok_or_else(|| Error::Config(bug("no live record was under way")))?;
        let record = std::mem::replace(&mut self.trainer.kept_llc, live.kept);
        let llc = record.and_then(|k| k.estimates.into_iter().next());
        W::live_llc_recorded(self, llc.ok_or_else(|| Error::Config(bug("the live record's estimate went missing")))?)?;
        self.trainer.timing.records_ms += now_ms() - live.started_ms;
        Progress::done(Outcome::Evaluation(live.evaluation))
    }

    /// Gives the live record under way up, if any: the view keeps its estimate.
    pub(super) fn drop_live_record(&mut self) {
        if let Some(live) = self.live_record.take() {
            self.trainer.kept_llc = live.kept;
        }
    }
}
