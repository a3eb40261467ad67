//! Sampling, as nanoGPT's `sample.py`: what a generation asks for (`config.rs`), the sampler
//! (temperature, top-k, a key/value cache, in `sampler.rs`) and what it tells of the next token
//! (`next.rs`). A run streams its generation with them (`run/generation.rs`).

mod config;
mod next;
mod sampler;

pub use config::SampleConfig;
pub use next::{NextToken, NextTokens};
pub use sampler::{draw_weights, most_likely, next_token_probs, Sampler};
