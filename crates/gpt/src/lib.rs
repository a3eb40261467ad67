//! A GPT you can train from scratch, in pure Rust: nanoGPT's decoder-only transformer on a
//! small reverse-mode autograd engine over `ndarray`, with AdamW and a training loop.
//! It builds natively and for `wasm32-unknown-unknown`.

pub mod autograd;
pub mod checkpoint;
pub mod config;
pub mod data;
pub mod decode;
pub mod error;
pub mod evaluate;
pub mod model;
pub mod ops;
pub mod optim;
pub mod params;
pub mod presets;
pub mod rng;
pub mod sample;
pub mod schedule;
pub mod tokenizer;
pub mod train;
pub mod workspace;

pub use config::GPTConfig;
pub use error::{Error, Result};
pub use model::GPT;
pub use sample::{most_likely, next_token_probs, SampleConfig, Sampler};
pub use tokenizer::{CharTokenizer, Tokenizer, TokenizerKind};
pub use train::{Evaluation, StepStats, TrainConfig, Trainer};
