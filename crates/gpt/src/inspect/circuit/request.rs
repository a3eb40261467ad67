//! What the circuit view is asked: the corruption, the metric, how many pairs, EAP-IG's steps.

pub use crate::work::edge_plan::{Corruption, Metric};
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
