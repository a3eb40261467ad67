//! Toy models whose features are known by construction, trained by the one trainer: Elhage et
//! al.'s (2022) model of superposition (`superposition.rs`), the rows of sparse features it reads
//! (`data.rs`), the geometry it learns (`geometry.rs`), its run, which the CLI and the page drive
//! (`run.rs`), Elhage's phase diagrams, a grid of such runs (`phase.rs`), activations built from
//! known features (`synthetic_spec.rs`, `synthetic.rs`, correlated by `correlation.rs`; read from a
//! file, `recorded.rs`; or the toy model's own hidden layer, `hidden.rs`; each `known.rs`) for
//! autoencoders to learn
//! (`autoencoder.rs`), how learned directions are scored against features known to be true
//! (`truth.rs`), and how often a child feature is absorbed by its parent's latent
//! (`absorption.rs`); the page's one handle on a toy job, `job.rs`; and a deep linear network,
//! whose learning coefficient is known in closed form (`deep_linear.rs`).

pub mod absorption;
pub mod autoencoder;
pub mod correlation;
pub mod data;
pub mod deep_linear;
pub mod geometry;
pub mod hidden;
pub mod job;
pub mod known;
pub mod orthogonal;
pub mod phase;
pub mod recorded;
pub mod run;
pub mod seeded;
pub mod superposition;
pub mod synthetic;
pub mod synthetic_spec;
pub mod truth;

pub use autoencoder::{SaeStatus, SyntheticSae, SyntheticScores};
pub use correlation::Correlation;
pub use data::{features_of, ToyData, ToySettings, Variant};
pub use deep_linear::{aoyagi, DeepLinear};
pub use geometry::Geometry;
pub use hidden::ToyHidden;
pub use job::{KnownSource, ToyJob, ToyProgress, ToyWork};
pub use known::Known;
pub use phase::{Cell, Phase, PhaseSpec};
pub use recorded::Recorded;
pub use run::{ToyRun, ToyStatus};
pub use seeded::SeededModel;
pub use superposition::ToyModel;
pub use synthetic::Synthetic;
pub use synthetic_spec::{Firing, SyntheticSpec};
pub use truth::TruthScores;
