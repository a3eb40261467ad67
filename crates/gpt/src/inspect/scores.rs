//! What each attention head does, as numbers (the heads view reads them over time): how spread its attention is, how much it looks at
//! the previous token, and how much it behaves as an induction head (Olsson et al. 2022,
//! "In-context Learning and Induction Heads"): on a sequence of random tokens repeated once, an
//! induction head at a token in the repeat attends to the token that followed that token's first
//! occurrence.

use crate::rng::Rng;
use crate::run::Onset;
use crate::train::Record;
use serde::{Deserialize, Serialize};

/// An induction score at which a head counts as an induction head. A head that attends evenly
/// scores about 1/position on the probe; one that copies the pattern scores near 1.
pub const INDUCTION_THRESHOLD: f32 = 0.4;

/// Every head's scores at one step, each (L × nh) values, layer after layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct HeadScores {
    pub step: usize,
    /// Mean entropy of a query's attention (nats): ln(positions) when even, 0 when on one token.
    pub entropy: Vec<f32>,
    /// Mean weight on the token just before the query.
    pub previous_token: Vec<f32>,
    /// Mean weight, in the repeat, on the token after the current token's first occurrence.
    pub induction: Vec<f32>,
}

impl Record for HeadScores {
    const NAME: &'static str = "heads";
}

/// The rows of head `i` of `maps` (heads × T × T, each row a query's distribution over keys).
fn head(maps: &[f32], t: usize, i: usize) -> &[f32] {
    &maps[i * t * t..(i + 1) * t * t]
}

/// Each head's mean row entropy, over its `t` queries.
pub fn entropy(maps: &[f32], t: usize) -> Vec<f32> {
    per_head(maps, t, |a| {
        let row_entropy =
            |q: usize| -a[q * t..q * t + q + 1].iter().filter(|&&p| p > 0.0).map(|&p| p * p.ln()).sum::<f32>();
        (0..t).map(row_entropy).sum::<f32>() / t as f32
    })
}

/// Each head's mean weight from query q on key q − 1 (queries 1 onwards).
pub fn previous_token(maps: &[f32], t: usize) -> Vec<f32> {
    per_head(maps, t, |a| mean((1..t).map(|q| a[q * t + q - 1])))
}

/// Each head's induction score: its mean weight from each query on the key an induction head
/// would read there (`links`: the token after the query's earlier occurrence).
pub fn induction(maps: &[f32], t: usize, links: &[(usize, usize)]) -> Vec<f32> {
    per_head(maps, t, |a| mean(links.iter().map(|&(q, k)| a[q * t + k])))
}

fn per_head(maps: &[f32], t: usize, score: impl Fn(&[f32]) -> f32) -> Vec<f32> {
    (0..maps.len() / (t * t).max(1)).map(|i| score(head(maps, t, i))).collect()
}

fn mean(xs: impl Iterator<Item = f32>) -> f32 {
    let (sum, n) = xs.fold((0.0, 0), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        sum / n as f32
    }
}

/// `period` random tokens below `vocab`, then the same again: the induction probe. Fixed by
/// `seed`, so scores at different steps compare.
pub fn induction_probe(vocab: usize, period: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let half: Vec<usize> = (0..period).map(|_| rng.below(vocab.max(1))).collect();
    half.iter().chain(&half).copied().collect()
}

/// The first step at which some head past the first layer reached [`INDUCTION_THRESHOLD`], with
/// the strongest such head then; `n_head` heads per layer. A first-layer head has no
/// previous-token head before it to read, so a high score there is an offset learned by
/// position (at short repeats it passes the threshold while the copies stay wrong).
pub fn induction_onset(history: &[HeadScores], n_head: usize) -> Option<Onset> {
    history.iter().find_map(|scores| {
        let later = scores.induction.iter().enumerate().skip(n_head);
        let (i, &score) = later.max_by(|a, b| a.1.total_cmp(b.1))?;
        (score >= INDUCTION_THRESHOLD).then_some(Onset {
            step: scores.step,
            layer: i / n_head,
            head: i % n_head,
            score,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::repeat_links;

    /// One head's T × T map where query q puts all its weight on `key(q)`.
    fn pattern(t: usize, key: impl Fn(usize) -> usize) -> Vec<f32> {
        let mut a = vec![0.0; t * t];
        (0..t).for_each(|q| a[q * t + key(q)] = 1.0);
        a
    }

    #[test]
    fn a_uniform_row_has_entropy_ln_t() {
        let t = 8;
        let mut a = vec![0.0; t * t];
        (0..t).for_each(|k| a[(t - 1) * t + k] = 1.0 / t as f32); // the last query sees all 8 keys
        let last_row = -(0..t).map(|_| (1.0 / t as f32) * (1.0 / t as f32).ln()).sum::<f32>();
        assert!((last_row - (t as f32).ln()).abs() < 1e-6);
        assert!((entropy(&a, t)[0] * t as f32 - (t as f32).ln()).abs() < 1e-5, "only that row has any");
    }

    #[test]
    fn a_previous_token_head_scores_one_and_is_no_induction_head() {
        let (t, period) = (16, 8);
        let previous = pattern(t, |q| q.saturating_sub(1));
        assert_eq!(previous_token(&previous, t), [1.0]);
        assert!(induction(&previous, t, &repeat_links(period, t))[0] < 0.01);
        assert_eq!(entropy(&previous, t), [0.0]);
    }

    #[test]
    fn an_induction_head_scores_about_one() {
        let (t, period) = (16, 8);
        // In the repeat, attend to the token after the first occurrence; before it, to itself.
        let head = pattern(t, |q| if q >= period { q + 1 - period } else { q });
        assert!(induction(&head, t, &repeat_links(period, t))[0] > 0.99);
        assert!(previous_token(&head, t)[0] < 0.01);
        // Two heads side by side are scored separately.
        let both = [pattern(t, |q| q.saturating_sub(1)), head].concat();
        let scores = induction(&both, t, &repeat_links(period, t));
        assert!(scores[0] < 0.01 && scores[1] > 0.99);
        // One head per layer: a first-layer head's score is no onset, a second layer's is.
        let at = |step, induction| HeadScores { step, entropy: vec![0.0; 2], previous_token: vec![0.0; 2], induction };
        let history = [at(100, vec![0.9, 0.2]), at(200, vec![0.9, 0.5]), at(300, scores)];
        let onset = induction_onset(&history, 1).unwrap();
        assert_eq!((onset.step, onset.layer, onset.head), (200, 1, 0));
        assert!(induction_onset(&history[..1], 1).is_none());
    }

    #[test]
    fn the_probe_repeats_itself() {
        let p = induction_probe(50, 10, 7);
        assert_eq!(p.len(), 20);
        assert_eq!(p[..10], p[10..]);
        assert!(p.iter().all(|&x| x < 50));
    }
}
