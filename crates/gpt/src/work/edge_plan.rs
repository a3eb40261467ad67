//! Exact edge patching's work: every edge of the model's graph patched alone on pairs of clean
//! and corrupted prompts under a metric (see `model/edge_patching.rs`). Each edge is a unit; workers compute
//! contiguous ranges of them, and the run reads each edge's score from its unit's partial.

use super::partial::{one_per_unit, Partial};
use crate::error::{Error, Result};
use crate::words::runs::bug;
use serde::{Deserialize, Serialize};

/// Pairs of one length, run as one batch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub t: usize,
    /// Row after row.
    pub clean: Vec<usize>,
    pub corrupted: Vec<usize>,
    pub answers: Vec<usize>,
    pub wrongs: Vec<usize>,
}

impl Group {
    pub fn rows(&self) -> usize {
        self.answers.len()
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
    pub fn grad(self, logits: &[f32], (answer, wrong): (usize, usize), weight: f32, out: &mut [f32]) {
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

/// Every edge of a model's graph to patch, on these pairs, under this metric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgePlan {
    /// The graph's edges, in its order: the units.
    pub edges: usize,
    pub metric: Metric,
    pub groups: Vec<Group>,
}

impl EdgePlan {
    /// Checks a plan that came from elsewhere (another worker) before computing with it.
    pub(crate) fn check(&self) -> Result<()> {
        let fits = |g: &Group| {
            let n = g.rows() * g.t;
            g.t > 0 && g.clean.len() == n && g.corrupted.len() == n && g.wrongs.len() == g.rows()
        };
        if self.groups.is_empty() || !self.groups.iter().all(fits) {
            return Err(Error::Data(bug("an edge-patching plan's pairs do not match their sizes")));
        }
        Ok(())
    }

    /// Each edge's score from its unit's partial, in the graph's order.
    pub fn scores(&self, partials: Vec<Partial>) -> Result<Vec<f32>> {
        let partials = one_per_unit(partials, self.edges, "edges of the graph")?;
        Ok(partials.iter().map(|p| p.loss as f32).collect())
    }
}

/// Edge scores, the step and plan they were found for, and what finding them took.
#[derive(Clone, Debug)]
pub struct ScoredEdges {
    pub step: usize,
    pub plan: EdgePlan,
    pub scores: Vec<f32>,
    /// From the job's start to its last reply.
    pub ms: f64,
    /// The run's threads and its helpers.
    pub workers: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_must_fit_its_pairs_and_its_scores_come_in_edge_order() {
        let group = Group { t: 2, clean: vec![0; 4], corrupted: vec![1; 4], answers: vec![0, 0], wrongs: vec![1, 1] };
        let plan = EdgePlan { edges: 3, metric: Metric::LogitDifference, groups: vec![group.clone()] };
        assert!(plan.check().is_ok());
        let short = Group { corrupted: vec![1; 3], ..group };
        assert!(EdgePlan { groups: vec![short], ..plan.clone() }.check().is_err(), "a corrupted prompt too short");
        assert!(EdgePlan { groups: vec![], ..plan.clone() }.check().is_err(), "no pairs");
        let partial = |first, loss| Partial { first, count: 1, loss, exact: 0, grads: vec![] };
        assert_eq!(plan.scores(vec![partial(2, 3.0), partial(0, 1.0), partial(1, 2.0)]).unwrap(), [1.0, 2.0, 3.0]);
        assert!(plan.scores(vec![partial(0, 1.0), partial(2, 3.0)]).is_err(), "an edge missing");
    }
}
