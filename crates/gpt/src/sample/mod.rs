//! Sampling, as nanoGPT's `sample.py`: the sampler (temperature, top-k, a key/value cache, in
//! `sampler.rs`) and a run's generation (`generation.rs`: text streamed token by token, and the
//! next-token distribution after a prompt).

mod generation;
mod sampler;

pub use generation::{NextToken, NextTokens};
pub use sampler::{most_likely, next_token_probs, SampleConfig, Sampler};
