//! The trainer, for any model: a [`Trainable`] model (the GPT is the first) trained on [`Batches`]
//! (a text or a task) as nanoGPT's `train.py` trains, by a [`Trainer`] (`trainer.rs`) that keeps
//! the optimiser, the recipe, the step, the random stream, the history and the timing. A step
//! (`step.rs`: planned, its shards computed (`units.rs`), summed, checked and clipped, the
//! optimiser's update applied, `update.rs`), an evaluation (`evaluation.rs`), exact edge
//! patching (`edges.rs`) and the learning coefficient's chains (`llc.rs`) are each a job shared
//! with helpers (`sharing.rs`, over the messages of `work/`); a helper's copy of the model and
//! optimiser answers them (`replica.rs`). What training records (`history.rs`: the measures'
//! records too, by name) and reports (`report.rs`, timed by `timing.rs`).

mod edges;
mod evaluation;
mod history;
mod landscape;
mod llc;
mod replica;
mod report;
mod sharing;
mod step;
mod timing;
mod trainable;
mod trainer;
mod units;
mod update;

pub use history::{Evaluation, History, Record, StepStats};
pub use landscape::{IdsAndTargets, ModelLandscape};
pub use replica::Replica;
pub use report::TrainReport;
pub use sharing::{JobKind, Next, Outcome, Progress};
pub use trainable::{Batches, Frozen, FrozenHead, Trainable, Wanted};
pub use trainer::{StepOnCopy, Trainer};
pub use units::partials;
