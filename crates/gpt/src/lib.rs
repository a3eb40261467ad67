//! A GPT you can train from scratch, in pure Rust: nanoGPT's decoder-only transformer on a
//! small reverse-mode autograd engine over `ndarray`, with AdamW or Muon, a training loop and
//! sampling, all driven through a [`Run`].
//! It builds natively and for `wasm32-unknown-unknown`.
//!
//! The modules are floors, each importing only those below it (`docs/ARCHITECTURE.md` draws them,
//! and `tests/web/architecture.test.mjs` holds them): `words`, `error`, `rng`, `workspace`,
//! `fields`; `autograd`, `ops`, `params`; `optim` and `llc` (the learning coefficient's sampler);
//! `config`; `work` (shared work as data); `train`
//! (the trainer, for any model); `model` (the GPT) and `tokenizer`; `data`, `text_stats` and `sample`; `settings` and
//! `checkpoint`; `built` (models built by hand, whose weights a run's settings may ask for); `run`;
//! and above it `inspect` (the views), `interop`, `presets`, `catalog`, `compare`.

pub mod autograd;
pub mod built;
mod catalog;
pub mod checkpoint;
mod compare;
pub mod config;
pub mod data;
pub mod error;
pub mod fields;
pub mod inspect;
pub mod interop;
pub mod llc;
pub mod model;
pub mod ops;
pub mod optim;
pub mod params;
pub mod presets;
pub mod rng;
pub mod run;
pub mod sae;
pub mod sample;
pub mod settings;
pub mod text_stats;
pub mod tokenizer;
pub mod toy;
pub mod train;
pub mod words;
pub mod work;
pub mod workspace;

pub use catalog::{catalog, Catalog};
pub use compare::{differences, Difference};
pub use config::{Budget, GPTConfig, TrainConfig};
pub use data::{task_named, Task, TaskConfig, TASKS};
pub use error::{Error, FieldError, Result};
pub use inspect::snapshots::Timelapse;
pub use inspect::AttentionMaps;
pub use inspect::{Inside, Run};
pub use model::{Trace, WeightPart, GPT};
pub use optim::OptimizerKind;
pub use run::{
    Details, LlcRequest, LlcSamples, Milestones, Origin, RunJob, Solution, Status, TaskDetails, TextFit, LLC_ROWS,
};
pub use sample::{most_likely, next_token_probs, SampleConfig, Sampler};
pub use sample::{NextToken, NextTokens};
pub use settings::{Description, ModelSize, Settings, DEFAULT_BPE_VOCAB};
pub use text_stats::{TextCounter, TextStats};
pub use tokenizer::{CharTokenizer, SymbolTokenizer, Tokenizer, TokenizerKind};
pub use train::{Evaluation, History, JobKind, Next, Outcome, Progress, StepStats, TrainReport};
pub use work::Batch;
