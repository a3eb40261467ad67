//! Per-token surprise: the probe's tokens with the loss of predicting each and the model's
//! likeliest guesses there; and the mean held-out loss at each position of the block.

use super::look::{softmax_at, value, Look};
use crate::error::Result;
use crate::NextToken;
use serde::Serialize;

/// Held-out windows averaged for the loss by position.
const POSITION_WINDOWS: usize = 16;

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Surprise {
    pub probe: Vec<ProbeToken>,
    /// The mean loss at each position of the block, over the first held-out windows (empty
    /// without text).
    pub loss_by_position: Vec<f32>,
}

/// One probe token: its text, the loss of predicting it (none for the first), and the model's
/// likeliest guesses at that position.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ProbeToken {
    pub token: String,
    pub loss: Option<f32>,
    pub guesses: Vec<NextToken>,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let (trace, v) = (look.trace()?, look.run.vocab_size());
    let probe = look
        .probe
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let Some(before) = i.checked_sub(1) else {
                return ProbeToken { token: look.text(id), loss: None, guesses: vec![] };
            };
            let mut probs = trace.logits[before * v..i * v].to_vec();
            softmax_at(&mut probs, 1.0);
            let loss = -probs[id].max(f32::MIN_POSITIVE).ln();
            ProbeToken { token: look.text(id), loss: Some(loss), guesses: look.guesses(&probs) }
        })
        .collect();
    value(Surprise { probe, loss_by_position: loss_by_position(look)? })
}

/// The mean held-out loss at each position (over the rows with a target there).
fn loss_by_position(look: &Look) -> Result<Vec<f32>> {
    let Some(data) = look.run.dataset() else { return Ok(vec![]) };
    let (x, y, t) = data.position_rows(POSITION_WINDOWS, look.run.model().config().block_size);
    if x.is_empty() {
        return Ok(vec![]);
    }
    let ids: Vec<usize> = x.iter().map(|&t| t as usize).collect();
    let logits = look.run.model().logits(&ids, ids.len() / t, t)?;
    let (logits, v) = (logits.as_slice().expect("fresh logits"), look.run.vocab_size());
    let (mut sums, mut counts) = (vec![0.0; t], vec![0u32; t]);
    for ((i, row), &target) in logits.chunks_exact(v).enumerate().zip(&y) {
        if target == crate::data::IGNORE {
            continue;
        }
        let mut probs = row.to_vec();
        softmax_at(&mut probs, 1.0);
        sums[i % t] -= probs[target as usize].max(f32::MIN_POSITIVE).ln();
        counts[i % t] += 1;
    }
    Ok(sums.into_iter().zip(counts).map(|(s, n)| s / n.max(1) as f32).collect())
}
