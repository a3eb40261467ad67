//! Which features fire on each token, and how strongly: a sparse row per token (a handful of the
//! thousands of features), chosen from the encoder's pre-activations by the architecture's rule.

use super::config::Architecture;

/// Each row's firing features in increasing order and their activations, row after row (CSR).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Codes {
    /// Where each row starts in `features` and `values`, and where the last ends.
    pub starts: Vec<usize>,
    pub features: Vec<u32>,
    pub values: Vec<f32>,
}

impl Codes {
    pub fn rows(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Row `n`'s features and activations.
    pub fn row(&self, n: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let at = self.starts[n]..self.starts[n + 1];
        self.features[at.clone()].iter().map(|&j| j as usize).zip(self.values[at].iter().copied())
    }

    /// Every row's activations, dense: (rows, d_sae).
    pub fn dense(&self, d_sae: usize) -> Vec<f32> {
        let mut out = vec![0.0; self.rows() * d_sae];
        for n in 0..self.rows() {
            self.row(n).for_each(|(j, a)| out[n * d_sae + j] = a);
        }
        out
    }

    /// The codes of `pre` (rows of `d_sae` pre-activations) under `architecture`, `among` the
    /// features it marks (all when `None`), up to `most` per row, keeping only the positive ones
    /// when `relu`.
    pub(crate) fn select(pre: &[f32], d_sae: usize, most: usize, among: Option<&[bool]>, relu: bool) -> Codes {
        let rows = pre.len() / d_sae;
        let mut codes = Codes { starts: Vec::with_capacity(rows + 1), ..Codes::default() };
        codes.starts.push(0);
        let mut order: Vec<u32> = Vec::with_capacity(d_sae);
        for row in pre.chunks_exact(d_sae) {
            order.clear();
            let allowed = |j: usize| among.is_none_or(|m| m[j]) && (!relu || row[j] > 0.0);
            order.extend((0..d_sae).filter(|&j| allowed(j)).map(|j| j as u32));
            if order.len() > most {
                // Larger first, and the lower index on a tie: one order, whatever the platform.
                let by = |a: &u32, b: &u32| row[*b as usize].total_cmp(&row[*a as usize]).then(a.cmp(b));
                order.select_nth_unstable_by(most - 1, by);
                order.truncate(most);
            }
            order.sort_unstable();
            codes.features.extend_from_slice(&order);
            codes.values.extend(order.iter().map(|&j| row[j as usize]));
            codes.starts.push(codes.features.len());
        }
        codes
    }

    /// The codes the architecture gives `pre` once trained: a thresholded one's fire above its
    /// `threshold` (one per feature).
    pub(crate) fn of(pre: &[f32], d_sae: usize, architecture: Architecture, threshold: Option<&[f32]>) -> Codes {
        match (architecture, threshold) {
            (Architecture::TopK { k, .. }, _) => {
                // TopK picks the k largest, then a ReLU zeroes the negative among them.
                let mut codes = Codes::select(pre, d_sae, k, None, false);
                codes.keep_positive();
                codes
            }
            (_, Some(threshold)) => Codes::from_rows(pre, d_sae, |n, j| pre[n * d_sae + j] > threshold[j].max(0.0)),
            _ => Codes::select(pre, d_sae, d_sae, None, true),
        }
    }

    /// The codes training gives `pre`: BatchTopK's (and Matryoshka's) are the `k × rows` largest
    /// positive pre-activations of the whole batch; any other architecture's as once trained.
    pub(crate) fn training(pre: &[f32], d_sae: usize, architecture: Architecture, threshold: Option<&[f32]>) -> Codes {
        let Some(k) = architecture.k().filter(|_| architecture.per_batch()) else {
            return Codes::of(pre, d_sae, architecture, threshold);
        };
        let mut order: Vec<u32> = (0..pre.len() as u32).filter(|&i| pre[i as usize] > 0.0).collect();
        let most = k * (pre.len() / d_sae);
        if order.len() > most && most > 0 {
            // Larger first, and the lower index on a tie, as a row's TopK.
            let by = |a: &u32, b: &u32| pre[*b as usize].total_cmp(&pre[*a as usize]).then(a.cmp(b));
            order.select_nth_unstable_by(most - 1, by);
        }
        order.truncate(most);
        let mut chosen = vec![false; pre.len()];
        order.iter().for_each(|&i| chosen[i as usize] = true);
        Codes::from_rows(pre, d_sae, |n, j| chosen[n * d_sae + j])
    }

    /// The codes of the pre-activations `fires(row, feature)` picks.
    fn from_rows(pre: &[f32], d_sae: usize, fires: impl Fn(usize, usize) -> bool) -> Codes {
        let rows = pre.len() / d_sae;
        let mut codes = Codes { starts: Vec::with_capacity(rows + 1), ..Codes::default() };
        codes.starts.push(0);
        for n in 0..rows {
            for j in (0..d_sae).filter(|&j| fires(n, j)) {
                codes.features.push(j as u32);
                codes.values.push(pre[n * d_sae + j]);
            }
            codes.starts.push(codes.features.len());
        }
        codes
    }

    /// Drops every activation that is not positive.
    fn keep_positive(&mut self) {
        let (mut kept, mut starts) = (0, vec![0]);
        for n in 0..self.rows() {
            for i in self.starts[n]..self.starts[n + 1] {
                if self.values[i] > 0.0 {
                    (self.features[kept], self.values[kept]) = (self.features[i], self.values[i]);
                    kept += 1;
                }
            }
            starts.push(kept);
        }
        self.features.truncate(kept);
        self.values.truncate(kept);
        self.starts = starts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_keeps_the_largest_positive_and_relu_every_positive() {
        let pre = [0.5, -1.0, 2.0, 0.5, 3.0, /* row 2 */ -1.0, -2.0, -0.5, 0.1, -3.0];
        let top = Codes::of(&pre, 5, Architecture::TopK { k: 3, aux_coefficient: 1.0 }, None);
        // Row 1: 3.0, 2.0 and the first of the tied 0.5s; row 2: only 0.1 is positive.
        assert_eq!(top.row(0).collect::<Vec<_>>(), vec![(0, 0.5), (2, 2.0), (4, 3.0)]);
        assert_eq!(top.row(1).collect::<Vec<_>>(), vec![(3, 0.1)]);
        let relu = Codes::of(&pre, 5, Architecture::Relu { l1_coefficient: 1.0 }, None);
        assert_eq!(relu.row(0).count(), 4);
        assert_eq!(relu.dense(5)[5..], [0.0, 0.0, 0.0, 0.1, 0.0]);
        // Among a mask, negatives included (the auxiliary loss's dead features).
        let dead = [true, true, false, false, false];
        let aux = Codes::select(&pre, 5, 1, Some(&dead), false);
        assert_eq!(aux.row(1).collect::<Vec<_>>(), vec![(0, -1.0)]);
    }

    #[test]
    fn batch_top_k_keeps_the_batchs_largest_and_fires_above_its_threshold_once_trained() {
        let pre = [0.5, -1.0, 2.0, 0.5, 3.0, /* row 2 */ -1.0, -2.0, -0.5, 0.1, -3.0];
        let batch = Architecture::BatchTopK { k: 2, aux_coefficient: 1.0 };
        // Four of the batch's five positive values: row 1 takes all four, row 2 none.
        let codes = Codes::training(&pre, 5, batch, Some(&[0.0; 5]));
        assert_eq!(codes.row(0).collect::<Vec<_>>(), vec![(0, 0.5), (2, 2.0), (3, 0.5), (4, 3.0)]);
        assert_eq!(codes.row(1).count(), 0);
        let trained = Codes::of(&pre, 5, batch, Some(&[0.4; 5]));
        assert_eq!(trained.features, [0, 2, 3, 4]);
        // A threshold below zero still keeps only the positive (SAELens's ReLU before the jump).
        let jump = Architecture::JumpRelu { l0_coefficient: 1.0, bandwidth: 0.05 };
        let codes = Codes::training(&pre, 5, jump, Some(&[-0.6, 2.5, 2.5, 0.0, 0.0]));
        assert_eq!(codes.features, [0, 3, 4, 3]);
    }
}
