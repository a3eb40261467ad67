//! What a generation asks for: the prompt and how to pick each next token, checked.

use crate::error::{Error, FieldError, Result};
use crate::words::settings as words;
use serde::{Deserialize, Serialize};

/// A generation as the user asked for it: the prompt and how to pick each next token.
/// Checkpoints keep the last one, so a resumed session samples as it did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default, deny_unknown_fields)]
pub struct SampleConfig {
    /// The text to continue, as typed; [`super::Sampler::new`] takes its tokens beside it.
    pub prompt: String,
    /// Divides the logits; 0 always picks the most likely token (greedy).
    pub temperature: f32,
    /// Keep only the `top_k` most likely tokens; 0 keeps them all.
    pub top_k: usize,
    pub seed: u64,
    pub max_new_tokens: usize,
}

impl Default for SampleConfig {
    fn default() -> Self {
        SampleConfig { prompt: String::new(), temperature: 0.8, top_k: 0, seed: 1337, max_new_tokens: 200 }
    }
}

/// The most tokens one call may ask for.
pub const MAX_NEW_TOKENS: usize = 100_000;

impl SampleConfig {
    pub fn validate(&self) -> Result<()> {
        if !(self.temperature.is_finite() && (0.0..=100.0).contains(&self.temperature)) {
            return Err(Error::Invalid(FieldError::new("temperature", words::temperature(self.temperature))));
        }
        if self.max_new_tokens > MAX_NEW_TOKENS {
            let message = words::max_new_tokens(MAX_NEW_TOKENS, self.max_new_tokens);
            return Err(Error::Invalid(FieldError::new("max_new_tokens", message)));
        }
        Ok(())
    }
}
