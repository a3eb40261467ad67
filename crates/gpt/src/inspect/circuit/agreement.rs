//! How far a fast score ranks the edges as the exact one does: Spearman's rank correlation, and
//! the overlap of their top k.

use serde::Serialize;

/// How a fast score ranks the edges against the exact one.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Agreement {
    /// `eap` or `eap_ig`.
    pub method: &'static str,
    /// Spearman's rank correlation of the scores with the exact ones.
    pub spearman: f32,
    /// Of the `top_k` edges the exact scores rank highest (by size), how many this one does too.
    pub top_k: usize,
    pub overlap: usize,
}

impl Agreement {
    /// How `scores`, found by `method`, agree with the `exact` ones on the top `top_k` edges.
    pub(super) fn of(method: &'static str, exact: &[f32], scores: &[f32], top_k: usize) -> Agreement {
        Agreement { method, spearman: spearman(exact, scores), top_k, overlap: overlap(exact, scores, top_k) }
    }
}

/// Ranks from 1 (ties share their mean rank).
pub(super) fn ranks(xs: &[f32]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            ranks[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rank correlation: Pearson's on the ranks.
pub fn spearman(a: &[f32], b: &[f32]) -> f32 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let (va, vb): (f64, f64) = (ra.iter().map(|x| (x - ma).powi(2)).sum(), rb.iter().map(|y| (y - mb).powi(2)).sum());
    if va == 0.0 || vb == 0.0 {
        return 0.0;
    }
    (cov / (va * vb).sqrt()) as f32
}

/// How many of the `k` edges largest in size by `a` are among the `k` largest by `b`.
fn overlap(a: &[f32], b: &[f32], k: usize) -> usize {
    let top = |x: &[f32]| {
        let mut order: Vec<usize> = (0..x.len()).collect();
        order.sort_by(|&i, &j| x[j].abs().total_cmp(&x[i].abs()));
        order.truncate(k);
        order
    };
    let (ta, tb) = (top(a), top(b));
    ta.iter().filter(|i| tb.contains(i)).count()
}
