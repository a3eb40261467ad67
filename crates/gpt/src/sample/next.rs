//! The model's most likely next tokens, as the page and `gpt sample --next-tokens` list them.

use serde::Serialize;

/// A candidate next token: its id, its text and the model's probability for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct NextToken {
    pub id: u32,
    pub token: String,
    pub prob: f32,
}

/// The most likely next tokens, with the temperature their probabilities are at.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct NextTokens {
    /// The temperature asked for, or 1 when that was 0: greedy decoding has no spread to show,
    /// and it takes the first token of this list.
    pub temperature: f32,
    pub greedy: bool,
    pub tokens: Vec<NextToken>,
}
