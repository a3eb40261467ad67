//! What a run is made of, as settings: the model's shape (`model.rs`: nanoGPT's `GPTConfig`, and
//! the [`Budget`] a caller allows), and the training recipe (`train.rs`: [`TrainConfig`], with its
//! learning-rate [`Schedule`] in `schedule.rs`). Plain data with the rules that check it, below
//! everything that builds or trains from it.

mod architecture;
mod model;
mod schedule;
mod train;

pub use architecture::Architecture;
pub use model::{Budget, GPTConfig};
pub use schedule::Schedule;
pub use train::{TrainConfig, MAX_BATCH, MAX_EVAL_ITERS, MAX_ITERS};
