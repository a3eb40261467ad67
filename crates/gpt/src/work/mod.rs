//! Work shared among workers, as data: a batch's rows (`batch.rs`); a training step's shards, an
//! evaluation's batches, exact patching's edges or the learning coefficient's chains (`plan.rs`,
//! with `step_plan.rs`, `eval_plan.rs`, `edge_plan.rs` and `llc_plan.rs`); the partial sums they
//! come back as and the canonical tree that adds them up (`partial.rs`), so the result never
//! depends on how many computed it; the messages between the run and its helpers (`order.rs`); the
//! books of a job under way (`job.rs`: who computes what, what is out) and a step's update being
//! shared (`update.rs`). The trainer (`train/`) moves a job through its phases and computes with a
//! model; this floor knows no model.

pub mod batch;
pub mod edge_plan;
mod eval_plan;
pub(crate) mod job;
pub mod llc_plan;
pub mod order;
mod partial;
mod plan;
mod step_plan;
mod update;

pub use batch::{targets, Batch, Split, IGNORE};
pub use eval_plan::{EvalPlan, SplitScore};
pub use order::{Data, Outgoing, SyncState};
pub(crate) use partial::push_merging;
pub use partial::{combine, worker_units, Partial};
pub use plan::Work;
pub use step_plan::{shard_count, shard_rows, StepPlan, MAX_SHARDS, MIN_SHARD_TOKENS};
pub use update::Update;
