//! Work shared among workers: a training step's shards and an evaluation's batches, planned by
//! the run, handed out as orders, computed by the run and its helpers, and added up so that the
//! result never depends on how many computed it.
//!
//! - `plan.rs`: what a worker is handed ([`Work`]): a step's plan (`step_plan.rs`) or an
//!   evaluation's (`eval_plan.rs`);
//! - `partial.rs`: partial sums and the canonical tree that adds them up;
//! - `order.rs`: the messages between the run and its helpers;
//! - `job.rs`: the books of work under way (who computes what, what is out);
//! - `replica.rs`: a helper's copy of the model and optimiser, which answers orders.
//!
//! - `sharing.rs`: how a run moves a job from phase to phase; the page's workers only carry
//!   the messages.

mod eval_plan;
pub(crate) mod job;
pub mod order;
mod partial;
mod plan;
mod replica;
pub(crate) mod sharing;
mod step_plan;

pub use eval_plan::{EvalPlan, SplitScore};
pub use order::{Data, Outgoing, SyncState};
pub use partial::{combine, worker_units, Partial};
pub use plan::Work;
pub use replica::Replica;
pub use sharing::{JobKind, Next, Outcome, Progress};
pub use step_plan::{shard_count, shard_rows, StepPlan, MAX_SHARDS, MIN_SHARD_TOKENS};
