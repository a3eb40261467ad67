//! What the circuit view is asked: the corruption, the metric, how many pairs, EAP-IG's steps.

pub use crate::work::edge_plan::Metric;
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
