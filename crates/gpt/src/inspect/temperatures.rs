//! Softmax at three temperatures: the next-token distribution after the sampling prompt at 0.5,
//! 1 and 2, for the likeliest tokens at 1.

use super::look::{value, Look};
use crate::error::Result;
use crate::sample::most_likely;
use serde::Serialize;

const TEMPERATURES: [f32; 3] = [0.5, 1.0, 2.0];
/// Tokens shown at each temperature.
const TOKENS: usize = 8;

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Temperatures {
    pub temperatures: Vec<f32>,
    pub tokens: Vec<String>,
    /// One row per temperature.
    pub probs: Vec<Vec<f32>>,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let ids = look.run.tokenizer().encode(look.prompt)?;
    let model = look.run.model();
    let probs: Vec<Vec<f32>> =
        TEMPERATURES.iter().map(|&temp| crate::next_token_probs(model, &ids, temp)).collect::<Result<_>>()?;
    let top = most_likely(&probs[1], TOKENS);
    value(Temperatures {
        temperatures: TEMPERATURES.to_vec(),
        tokens: top.iter().map(|&(id, _)| look.text(id as usize)).collect(),
        probs: probs.iter().map(|p| top.iter().map(|&(id, _)| p[id as usize]).collect()).collect(),
    })
}
