//! How long training has taken in this process, which the reports read (`report.rs`): a trainer
//! keeps one.

use super::history::StepStats;

/// Training time since the trainer was made or opened in this process, and since the last report.
#[derive(Default)]
pub(crate) struct Timing {
    pub(crate) ms: f64,
    pub(crate) steps: usize,
    /// Tokens trained on in that time.
    pub(crate) tokens: usize,
    pub(crate) report_ms: f64,
    pub(crate) report_losses: Vec<f32>,
    pub(crate) last: Option<StepStats>,
    /// Shards the last step split into: more workers than this had nothing to do.
    pub(crate) shards: usize,
    /// Time the views took to measure the model at evaluations (their records), apart from `ms`.
    pub(crate) records_ms: f64,
}

impl Timing {
    /// Counts a step that took `ms`, split into `shards`.
    pub(crate) fn stepped(&mut self, stats: StepStats, ms: f64, shards: usize) {
        (self.ms, self.steps, self.tokens, self.report_ms) =
            (self.ms + ms, self.steps + 1, self.tokens + stats.tokens, self.report_ms + ms);
        (self.last, self.shards) = (Some(stats), shards);
        self.report_losses.push(stats.loss);
    }
}
