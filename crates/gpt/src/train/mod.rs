//! Training a run, as nanoGPT's `train.py`: the recipe (`config.rs`) and its learning-rate
//! schedule (`schedule.rs`); a step (`step.rs`: planned, its shards summed, checked and clipped,
//! the optimiser's update applied, `update.rs`) and an evaluation (`evaluation.rs`), each a job shared with
//! helpers (`work/`); what training records (`history.rs`) and reports (`report.rs`, timed by
//! `timing.rs`).

mod config;
mod evaluation;
mod history;
mod report;
mod schedule;
mod step;
pub(crate) mod timing;
pub(crate) mod update;

pub use config::{TrainConfig, MAX_BATCH, MAX_EVAL_ITERS, MAX_ITERS};
pub use history::{Evaluation, History, Milestones, StepStats, GENERALISED};
pub use report::TrainReport;
pub use schedule::Schedule;
