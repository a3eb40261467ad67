//! What the walk through the model is asked to follow.

use serde::Deserialize;

/// What the walk follows. Left empty or out, each takes a default that shows something: a
/// held-out problem (or the start of the held-out text), its last position, the head the run's
/// scores name, and the token the data has next.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default)]
pub struct WalkRequest {
    /// A text, or a task's problem as a person types it.
    pub text: String,
    /// The position followed, from 0.
    pub position: Option<usize>,
    /// The layer and head whose attention is opened, from 0.
    pub layer: Option<usize>,
    pub head: Option<usize>,
    /// The token the training step teaches at the position (its text); empty: the next one.
    pub target: String,
    /// The sampling settings the last stage draws with (the sample panel's).
    pub temperature: f32,
    pub top_k: usize,
    pub seed: u64,
}

impl Default for WalkRequest {
    fn default() -> WalkRequest {
        let sample = crate::SampleConfig::default();
        WalkRequest {
            text: String::new(),
            position: None,
            layer: None,
            head: None,
            target: String::new(),
            temperature: sample.temperature,
            top_k: sample.top_k,
            seed: sample.seed,
        }
    }
}
