//! What the page asks of the model's current weights, one request at a time (so the bindings need
//! one entry point): the likeliest next tokens, its answers to a task's problems, and the views
//! inside it.

use super::{Inside, Questions, Run};
use crate::error::Result;
use crate::run::Solution;
use crate::sample::NextTokens;
use serde::{Deserialize, Serialize};

/// One thing the page asks of the model.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "ask", rename_all = "snake_case")]
pub enum ModelRequest {
    /// The `k` most likely tokens after `prompt` at `temperature`.
    NextTokens { prompt: String, temperature: f32, k: usize },
    /// Its answers to `n` held-out problems of its task, the same ones each time.
    Solutions { n: usize },
    /// Its answer to a problem a person typed (its prompt, as `bdca` or `12+34`).
    Solve { typed: String },
    /// The views called `views` for `probe` (empty: held-out text), the sampling `prompt`, and what the views are `asked`.
    Inside { views: Vec<String>, probe: String, prompt: String, asked: Box<Questions> },
}

/// The answer to a [`ModelRequest`], in the field named like it.
#[derive(Debug, Default, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ModelAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub next_tokens: Option<NextTokens>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub solutions: Option<Vec<Solution>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub solution: Option<Solution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub inside: Option<Inside>,
}

impl Run {
    /// Answers `request` from the current weights; an error leaves the run as it was.
    pub fn ask(&self, request: ModelRequest) -> Result<ModelAnswer> {
        Ok(match request {
            ModelRequest::NextTokens { prompt, temperature, k } => {
                ModelAnswer { next_tokens: Some(self.next_tokens(&prompt, temperature, k)?), ..Default::default() }
            }
            ModelRequest::Solutions { n } => {
                ModelAnswer { solutions: Some(self.held_out_solutions(n)?), ..Default::default() }
            }
            ModelRequest::Solve { typed } => ModelAnswer { solution: Some(self.solve(&typed)?), ..Default::default() },
            ModelRequest::Inside { views, probe, prompt, asked } => {
                ModelAnswer { inside: Some(self.inside(&views, &probe, &prompt, &asked)?), ..Default::default() }
            }
        })
    }
}
