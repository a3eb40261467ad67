//! Sparse autoencoders: what a model represents, pulled apart into features a person can read.
//! An autoencoder reads a run's activations at one hook point (`model/hook_point.rs`) and
//! rewrites each token's as a few firing features out of thousands (`codes.rs`), each a direction
//! of the decoder (`weights.rs`, under SAELens's names; unit rows and the starting median in `rows.rs`). It trains through the GPT's own trainer
//! (`trainee.rs`: a [`crate::train::Trainable`] on a frozen copy of the model; its loss and
//! gradient in `loss.rs`), by settings checked in `config.rs`. A transcoder per MLP
//! (`transcoders.rs`) trains through the same trainee, and stands in for the MLPs in the
//! replacement model.

mod codes;
mod config;
mod dictionaries;
mod loss;
mod rows;
mod source;
mod sums;
mod trainee;
mod transcoders;
mod weights;

pub use codes::Codes;
pub use config::{
    recipe, Architecture, SaeConfig, JUMP_BANDWIDTH, JUMP_START, MAX_EXPANSION, MAX_LEVELS, THRESHOLD_RATE,
};
pub use dictionaries::{Dictionaries, Read};
pub use loss::Losses;
pub use rows::normalize_rows;
pub use source::Source;
pub use sums::{activation_variance, Sums, DENSE};
pub use trainee::{SaeTrainee, SavedSae};
pub use transcoders::{Replacement, Scaled, Transcoders};
pub(crate) use weights::shapes;
pub use weights::{Sae, SaeRef, NAMES};

#[cfg(test)]
mod tests;
