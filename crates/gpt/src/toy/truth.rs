//! How well learned directions (an autoencoder's decoder rows) find features known to be true, as
//! SAELens's `sae_lens.synthetic` scores them: the mean correlation coefficient (each true feature
//! matched to at most one learned direction by the Hungarian algorithm, the matched pairs' mean
//! |cosine|), each true feature's best |cosine| and the share of them found (best ≥ 0.9), and the
//! uniqueness (distinct true features among the learned directions' best matches, per direction).

use serde::Serialize;

/// A true feature counts as found when some learned direction is this close (|cosine|).
pub const FOUND: f32 = 0.9;

/// Learned directions scored against the true features.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TruthScores {
    /// Mean |cosine| of the matched pairs (SAELens's `mean_correlation_coefficient`).
    pub mcc: f32,
    /// Each true feature's best |cosine| with any learned direction.
    pub best_cosine: Vec<f32>,
    /// The share of true features whose best |cosine| is at least [`FOUND`].
    pub found: f32,
    /// Distinct true features the learned directions best match, per direction (SAELens's `feature_uniqueness`).
    pub uniqueness: f32,
    /// Each true feature's learned direction under the MCC's matching (none when there are fewer
    /// directions than features and it went without).
    pub matched: Vec<Option<usize>>,
}

/// The first true features against the latents matched to them, column by column in the same
/// order: a bright diagonal is features found, one latent each; a bright cell off it, a latent
/// mixing two features.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct MatchGrid {
    /// Each shown feature's latent (none when it went without one).
    pub latents: Vec<Option<usize>>,
    /// `|cos|` of true feature r with column c's latent, shown × shown row by row (0 in a column
    /// without a latent).
    pub cosines: Vec<f32>,
}

/// The grid of the first `shown` true features of `truth` and their `matched` rows of `learned`
/// (rows of `d`).
pub fn match_grid(learned: &[f32], truth: &[f32], matched: &[Option<usize>], d: usize, shown: usize) -> MatchGrid {
    let latents = matched[..shown.min(matched.len())].to_vec();
    let zero = vec![0.0; d];
    let columns: Vec<f32> =
        latents.iter().flat_map(|j| j.map_or(zero.as_slice(), |j| &learned[j * d..(j + 1) * d])).copied().collect();
    MatchGrid { cosines: abs_cosines(&truth[..latents.len() * d], &columns, d), latents }
}

/// `|cos|` between each row of `a` and each row of `b` (rows of `d`), `a`'s rows by `b`'s; a zero
/// row is 0 against everything (its norm clamped at 1e-8, as SAELens does).
pub fn abs_cosines(a: &[f32], b: &[f32], d: usize) -> Vec<f32> {
    let unit = |m: &[f32]| -> Vec<f32> {
        m.chunks(d)
            .flat_map(|row| {
                let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-8);
                row.iter().map(move |x| x / norm)
            })
            .collect()
    };
    let (a, b) = (unit(a), unit(b));
    a.chunks(d).flat_map(|x| b.chunks(d).map(|y| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>().abs())).collect()
}

/// `learned` (rows of `d`) scored against `truth` (rows of `d`).
pub fn score(learned: &[f32], truth: &[f32], d: usize) -> TruthScores {
    let (k, n) = (learned.len() / d, truth.len() / d);
    let cos = abs_cosines(truth, learned, d); // n × k
    let best_cosine: Vec<f32> =
        (0..n).map(|i| cos[i * k..(i + 1) * k].iter().fold(0.0, |m: f32, &c| m.max(c))).collect();
    let pairs = assignment(&cos.iter().map(|c| 1.0 - f64::from(*c)).collect::<Vec<_>>(), n, k);
    let mcc = if pairs.is_empty() {
        0.0
    } else {
        pairs.iter().map(|&(i, j)| cos[i * k + j]).sum::<f32>() / pairs.len() as f32
    };
    let found = if n == 0 { 0.0 } else { best_cosine.iter().filter(|&&c| c >= FOUND).count() as f32 / n as f32 };
    let mut matched: Vec<usize> = (0..k).map(|j| argmax((0..n).map(|i| cos[i * k + j]))).collect();
    matched.sort_unstable();
    matched.dedup();
    let uniqueness = if k == 0 { 0.0 } else { matched.len() as f32 / k as f32 };
    let mut matched = vec![None; n];
    pairs.iter().for_each(|&(i, j)| matched[i] = Some(j));
    TruthScores { mcc, best_cosine, found, uniqueness, matched }
}

/// The first index of the largest value (as torch's `argmax`).
fn argmax(values: impl Iterator<Item = f32>) -> usize {
    values.enumerate().fold((0, f32::NEG_INFINITY), |best, (i, v)| if v > best.1 { (i, v) } else { best }).0
}

/// The pairs (row, column) of the `rows × cols` `cost` matrix, one per row or per column
/// (whichever are fewer), of least total cost: the Hungarian algorithm with potentials, O(n² m),
/// as `scipy.optimize.linear_sum_assignment` solves it.
pub fn assignment(cost: &[f64], rows: usize, cols: usize) -> Vec<(usize, usize)> {
    if rows > cols {
        let transposed: Vec<f64> = (0..cols).flat_map(|j| (0..rows).map(move |i| cost[i * cols + j])).collect();
        return assignment(&transposed, cols, rows).into_iter().map(|(j, i)| (i, j)).collect();
    }
    // 1-based, as the classic formulation: column 0 is the unmatched sentinel.
    let (n, m) = (rows, cols);
    let (mut u, mut v) = (vec![0.0; n + 1], vec![0.0; m + 1]);
    let (mut row_of, mut way) = (vec![0usize; m + 1], vec![0usize; m + 1]);
    for i in 1..=n {
        row_of[0] = i;
        let mut j0 = 0;
        let mut least = vec![f64::INFINITY; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = row_of[j0];
            let (mut delta, mut j1) = (f64::INFINITY, 0);
            for j in 1..=m {
                if !used[j] {
                    let reduced = cost[(i0 - 1) * m + (j - 1)] - u[i0] - v[j];
                    if reduced < least[j] {
                        least[j] = reduced;
                        way[j] = j0;
                    }
                    if least[j] < delta {
                        delta = least[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    least[j] -= delta;
                }
            }
            j0 = j1;
            if row_of[j0] == 0 {
                break;
            }
        }
        while j0 != 0 {
            let j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
        }
    }
    let mut pairs: Vec<(usize, usize)> = (1..=m).filter(|&j| row_of[j] != 0).map(|j| (row_of[j] - 1, j - 1)).collect();
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Every way of pairing, for small matrices: the least total cost.
    fn brute_force(cost: &[f64], rows: usize, cols: usize) -> f64 {
        fn go(cost: &[f64], row: usize, rows: usize, cols: usize, used: &mut Vec<bool>) -> f64 {
            if row == rows {
                return 0.0;
            }
            let mut best = f64::INFINITY;
            for j in 0..cols {
                if !used[j] {
                    used[j] = true;
                    best = best.min(cost[row * cols + j] + go(cost, row + 1, rows, cols, used));
                    used[j] = false;
                }
            }
            best
        }
        go(cost, 0, rows, cols, &mut vec![false; cols])
    }

    #[test]
    fn the_assignment_costs_the_least_of_every_pairing_square_or_not() {
        let mut rng = Rng::new(7);
        for (rows, cols) in [(1, 1), (3, 3), (4, 6), (6, 4), (5, 5), (2, 7)] {
            for _ in 0..20 {
                let cost: Vec<f64> = (0..rows * cols).map(|_| f64::from(rng.uniform())).collect();
                let pairs = assignment(&cost, rows, cols);
                assert_eq!(pairs.len(), rows.min(cols));
                let total: f64 = pairs.iter().map(|&(i, j)| cost[i * cols + j]).sum();
                let best = if rows <= cols {
                    brute_force(&cost, rows, cols)
                } else {
                    let t: Vec<f64> =
                        (0..cols).flat_map(|j| (0..rows).map(|i| cost[i * cols + j]).collect::<Vec<_>>()).collect();
                    brute_force(&t, cols, rows)
                };
                assert!((total - best).abs() < 1e-12, "{rows}x{cols}: {total} vs {best}");
            }
        }
    }

    #[test]
    fn directions_that_are_the_truth_score_one_and_a_missing_feature_lowers_the_share_found() {
        // Three true features in 3 dimensions; learned: two of them (one flipped, one scaled) and a mix.
        let truth = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let same = score(&[0.0, 0.0, 2.0, -1.0, 0.0, 0.0, 0.0, 3.0, 0.0], &truth, 3);
        assert_eq!((same.mcc, same.found, same.uniqueness), (1.0, 1.0, 1.0));
        let mixed = score(&[1.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 1.0, 1.0], &truth, 3);
        assert_eq!(mixed.best_cosine[..2], [1.0, 1.0]);
        assert!((mixed.best_cosine[2] - 0.5f32.sqrt()).abs() < 1e-6);
        assert!((mixed.found - 2.0 / 3.0).abs() < 1e-6);
        assert!((mixed.mcc - (2.0 + 0.5f32.sqrt()) / 3.0).abs() < 1e-6);
        assert!((mixed.uniqueness - 2.0 / 3.0).abs() < 1e-6, "the mix best matches feature 2 again");
    }
}
