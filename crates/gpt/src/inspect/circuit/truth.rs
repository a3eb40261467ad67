//! A way of finding a circuit scored against the circuit a model was built with: the ROC AUC of
//! its edge scores (by size) for telling the true edges from the rest, as scikit-learn's
//! `roc_auc_score` computes it, and the precision and recall of the circuit it found.

use super::agreement::ranks;
use serde::Serialize;

/// How a way of finding a circuit did against the known one.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct AgainstTruth {
    /// The chance that a true edge outscores a false one (ties count half): 1 ranks every true
    /// edge first, 0.5 is chance.
    pub auroc: f64,
    /// The share of the circuit's edges that are true ones.
    pub precision: f64,
    /// The share of the true edges the circuit has.
    pub recall: f64,
}

impl AgainstTruth {
    /// `scores` (by size) and the circuit of `edges` against the edges `truth` marks.
    pub fn of(scores: &[f32], edges: &[usize], truth: &[bool]) -> AgainstTruth {
        let sizes: Vec<f32> = scores.iter().map(|s| s.abs()).collect();
        let found = edges.iter().filter(|&&e| truth[e]).count() as f64;
        let share = |of: usize| if of == 0 { 0.0 } else { found / of as f64 };
        AgainstTruth {
            auroc: auroc(&sizes, truth),
            precision: share(edges.len()),
            recall: share(truth.iter().filter(|&&t| t).count()),
        }
    }
}

/// The area under the ROC curve of `scores` for `truth`, by the rank sum (Mann–Whitney): ties
/// take their mean rank, as on the ROC curve they make a diagonal step. None of either kind: 0.5.
pub fn auroc(scores: &[f32], truth: &[bool]) -> f64 {
    let positives = truth.iter().filter(|&&t| t).count() as f64;
    let negatives = truth.len() as f64 - positives;
    if positives == 0.0 || negatives == 0.0 {
        return 0.5;
    }
    let rank_sum: f64 = ranks(scores).iter().zip(truth).filter(|(_, &t)| t).map(|(r, _)| r).sum();
    (rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives)
}

#[cfg(test)]
mod tests {
    use super::{auroc, AgainstTruth};

    #[test]
    fn the_area_counts_the_true_edges_ranked_above_false_ones_and_ties_as_half() {
        assert_eq!(auroc(&[3.0, 2.0, 1.0, 0.0], &[true, true, false, false]), 1.0);
        assert_eq!(auroc(&[0.0, 1.0, 2.0, 3.0], &[true, true, false, false]), 0.0);
        // One true edge ties a false one, above the other false one: (0.5 + 1) / 2.
        assert_eq!(auroc(&[1.0, 1.0, 0.0], &[true, false, false]), 0.75);
        let scored = AgainstTruth::of(&[-5.0, 0.1, 4.0, 0.0], &[0, 1], &[true, false, true, false]);
        assert_eq!((scored.auroc, scored.precision, scored.recall), (1.0, 0.5, 0.5));
    }
}
