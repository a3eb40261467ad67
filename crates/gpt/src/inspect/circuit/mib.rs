//! MIB's scores of a way to rank edges (Mueller et al. 2025, the circuit track's
//! `evaluate_area_under_curve`): the circuit of the top `⌊share · edges⌋` edges at each of
//! [`SHARES`], pruned to its paths, and its faithfulness with the empty circuit as 0. CPR is the
//! area under that curve when the edges are ranked by signed score (higher is better), CMD the
//! area between 1 and the curve when ranked by size (0 is best), both by the trapezoid rule over
//! the shares themselves, as MIB's code takes them.

use super::prune::Evaluator;
use super::request::Metric;
use crate::error::Result;
use serde::Serialize;
use std::collections::HashMap;

/// The shares of the edges MIB keeps, smallest first.
pub const SHARES: [f64; 10] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0];

/// The faithfulness of a ranking's top edges at each of [`SHARES`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct MibCurve {
    /// [`SHARES`], the x of the curve.
    pub shares: Vec<f64>,
    /// The edges each circuit keeps once pruned to its paths.
    pub edges: Vec<usize>,
    pub faithfulness: Vec<f64>,
}

/// MIB's two scores, and the curves they are the areas of.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct MibScores {
    /// Ranked by signed score, the edges whose patching hurts the answer most first.
    pub signed: MibCurve,
    /// Ranked by the scores' size.
    pub absolute: MibCurve,
    /// The area under the signed curve: 1 for a circuit that keeps everything at every size.
    pub cpr: f64,
    /// The area between 1 and the absolute curve: 0 for one that is faithful at every size.
    pub cmd: f64,
}

/// The area under the curve `faithfulness` over `shares`, and the area between it and 1, by the
/// trapezoid rule.
pub fn areas(shares: &[f64], faithfulness: &[f64]) -> (f64, f64) {
    let (mut under, mut from_one) = (0.0, 0.0);
    for i in 1..shares.len() {
        let width = shares[i] - shares[i - 1];
        under += width * (faithfulness[i - 1] + faithfulness[i]) / 2.0;
        from_one += width * ((1.0 - faithfulness[i - 1]).abs() + (1.0 - faithfulness[i]).abs()) / 2.0;
    }
    (under, from_one)
}

impl Evaluator<'_> {
    /// MIB's CPR and CMD of the ranking `scores`, each the metric's change when that edge alone
    /// is patched: the signed ranking puts first the edges whose patching moves the metric most
    /// away from the answer (down for the logit difference, up for the loss).
    pub(super) fn mib(&self, scores: &[f32]) -> Result<MibScores> {
        let n = scores.len();
        let empty = self.faithfulness(&vec![false; n])?;
        let mut seen: HashMap<Vec<bool>, f64> = HashMap::new();
        let mut curve = |key: &dyn Fn(usize) -> f32| -> Result<MibCurve> {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| key(a).total_cmp(&key(b)));
            let (mut edges, mut faithfulness) = (Vec::new(), Vec::new());
            for share in SHARES {
                let mut kept = vec![false; n];
                order[..(share * n as f64) as usize].iter().for_each(|&e| kept[e] = true);
                let kept = self.graph.connected(&kept);
                let f = match seen.get(&kept) {
                    Some(&f) => f,
                    None if !kept.contains(&true) => 0.0,
                    None => (f64::from(self.faithfulness(&kept)?) - f64::from(empty)) / (1.0 - f64::from(empty)),
                };
                edges.push(kept.iter().filter(|&&k| k).count());
                faithfulness.push(f);
                seen.insert(kept, f);
            }
            Ok(MibCurve { shares: SHARES.to_vec(), edges, faithfulness })
        };
        let away = match self.metric {
            Metric::LogitDifference => 1.0,
            Metric::Loss => -1.0,
        };
        let signed = curve(&|e| away * scores[e])?;
        let absolute = curve(&|e| -scores[e].abs())?;
        let cpr = areas(&SHARES, &signed.faithfulness).0;
        let cmd = areas(&SHARES, &absolute.faithfulness).1;
        Ok(MibScores { signed, absolute, cpr, cmd })
    }
}

#[cfg(test)]
mod tests {
    use super::{areas, SHARES};

    #[test]
    fn a_curve_at_one_everywhere_has_all_the_area_and_none_from_one() {
        let (under, from_one) = areas(&SHARES, &[1.0; 10]);
        assert!((under - 0.999).abs() < 1e-12 && from_one == 0.0, "{under} {from_one}");
        // Faithfulness above 1 counts against CMD as much as below it.
        let (_, from_one) = areas(&[0.0, 1.0], &[1.5, 0.5]);
        assert_eq!(from_one, 0.5);
    }
}
