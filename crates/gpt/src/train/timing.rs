//! How long training has taken in this process, which the reports read (`report.rs`): a run
//! keeps one.

use super::history::StepStats;

/// Training time since the run was created or opened in this process, and since the last report.
#[derive(Default)]
pub(crate) struct Timing {
    pub(crate) ms: f64,
    pub(crate) steps: usize,
    pub(crate) report_ms: f64,
    pub(crate) report_losses: Vec<f32>,
    pub(crate) last: Option<StepStats>,
}
