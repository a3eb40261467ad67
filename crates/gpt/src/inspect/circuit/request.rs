//! What the circuit view is asked: the corruption, the metric, how many pairs, EAP-IG's steps.

use serde::{Deserialize, Serialize};

/// What the circuit view is asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default)]
pub struct CircuitRequest {
    pub corruption: Corruption,
    pub metric: Metric,
    /// Pairs of prompts to average over (when none are typed).
    pub pairs: usize,
    /// EAP-IG's steps.
    pub ig_steps: usize,
    /// Whether to score every edge now (it takes seconds); otherwise the view shows what the
    /// evaluations recorded.
    pub find: bool,
}

impl Default for CircuitRequest {
    fn default() -> Self {
        CircuitRequest {
            corruption: Corruption::Symbol,
            metric: Metric::LogitDifference,
            pairs: 32,
            ig_steps: 10,
            find: false,
        }
    }
}

/// What a corruption changes, and so which edges it can show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Corruption {
    /// The symbol to be copied changes: what the induction head reads through its values.
    #[default]
    Symbol,
    /// The earlier copy of the last symbol swaps with the symbol after it: where the induction
    /// head must look, so the previous-token head's edge into its keys.
    Swap,
}

/// What a circuit keeps: the answer's logit over the corrupted answer's, or the answer's loss.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// logit(answer) − logit(corrupted answer) at the last position.
    #[default]
    LogitDifference,
    /// −log p(answer) at the last position.
    Loss,
}

impl Metric {
    /// The metric of one row's last logits.
    pub fn of(self, logits: &[f32], answer: usize, wrong: usize) -> f32 {
        match self {
            Metric::LogitDifference => logits[answer] - logits[wrong],
            Metric::Loss => {
                let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let total: f32 = logits.iter().map(|l| (l - max).exp()).sum();
                max + total.ln() - logits[answer]
            }
        }
    }

    /// `weight` times its gradient at one row's last logits, into `out`.
    pub(super) fn grad(self, logits: &[f32], (answer, wrong): (usize, usize), weight: f32, out: &mut [f32]) {
        match self {
            Metric::LogitDifference => {
                out[answer] += weight;
                out[wrong] -= weight;
            }
            Metric::Loss => {
                let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let total: f32 = logits.iter().map(|l| (l - max).exp()).sum();
                for (o, l) in out.iter_mut().zip(logits) {
                    *o += weight * (l - max).exp() / total;
                }
                out[answer] -= weight;
            }
        }
    }
}
