//! Features that fire together, as SAELens's `ActivationGenerator` correlates them: a Gaussian
//! copula over a low-rank correlation matrix `F Fᵀ + diag(1 − ‖F_i‖²)`, with `F` (n × rank) drawn
//! as `generate_random_low_rank_correlation_matrix` draws it. A row draws
//! `g = F ε + √diag ∘ η` (ε and η standard normal), and feature `i` fires when `g_i` exceeds
//! `Φ⁻¹(1 − p_i)`: each still fires with its own probability, and features whose rows of `F` point
//! the same way fire together.

use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// The most factors of a correlation.
pub const MAX_RANK: usize = 256;
/// SAELens's least share of a feature's variance left to its own noise (`_MIN_DIAG`).
const MIN_OWN: f32 = 0.01;
/// Mixed into the spec's seed so that the factor's stream is its own.
const FACTOR_STREAM: u64 = 0x63_6f_72_72_65_6c;

/// How features are correlated: `rank` shared factors, each feature's loadings on them normal
/// with spread `scale` (SAELens's `correlation_scale`, 0.075 by default).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Correlation {
    pub rank: usize,
    pub scale: f32,
}

impl Correlation {
    pub fn is_valid(&self) -> bool {
        (1..=MAX_RANK).contains(&self.rank) && self.scale.is_finite() && self.scale >= 0.0
    }
}

/// The copula a row's firing is drawn from.
#[derive(Clone, Debug)]
pub struct Copula {
    rank: usize,
    /// (n, rank) row by row: each feature's loadings on the shared factors.
    factor: Vec<f32>,
    /// Each feature's own noise's spread, `√(1 − ‖F_i‖²)`.
    own: Vec<f32>,
    /// Each feature fires above `Φ⁻¹(1 − p_i)`.
    thresholds: Vec<f32>,
}

impl Copula {
    pub fn new(correlation: Correlation, probabilities: &[f32], seed: u64) -> Copula {
        let rank = correlation.rank;
        let mut rng = Rng::new(seed ^ FACTOR_STREAM);
        let mut factor: Vec<f32> = (0..probabilities.len() * rank).map(|_| rng.normal() * correlation.scale).collect();
        let own = factor
            .chunks_mut(rank)
            .map(|loadings| {
                let shared: f32 = loadings.iter().map(|f| f * f).sum();
                // Too much shared variance: cap it, as SAELens does, leaving MIN_OWN to the feature.
                if 1.0 - shared < MIN_OWN {
                    let shrink = ((1.0 - MIN_OWN) / shared).sqrt();
                    loadings.iter_mut().for_each(|f| *f *= shrink);
                }
                (1.0 - loadings.iter().map(|f| f * f).sum::<f32>()).max(0.0).sqrt()
            })
            .collect();
        let thresholds = probabilities.iter().map(|&p| upper_quantile(p as f64) as f32).collect();
        Copula { rank, factor, own, thresholds }
    }

    /// (n, rank) row by row: each feature's loadings on the shared factors.
    pub fn factor(&self) -> &[f32] {
        &self.factor
    }

    /// Each feature fires above this.
    pub fn thresholds(&self) -> &[f32] {
        &self.thresholds
    }

    /// Draws which features fire in one row, into `fires`.
    pub fn draw(&self, rng: &mut Rng, fires: &mut [bool]) {
        let shared: Vec<f32> = (0..self.rank).map(|_| rng.normal()).collect();
        let features = self.factor.chunks(self.rank).zip(&self.own).zip(&self.thresholds);
        for (fire, ((loadings, own), threshold)) in fires.iter_mut().zip(features) {
            let g: f32 = loadings.iter().zip(&shared).map(|(f, e)| f * e).sum::<f32>() + own * rng.normal();
            *fire = g > *threshold;
        }
    }

    pub fn parts_mut(&mut self) -> [&mut [f32]; 3] {
        [&mut self.factor, &mut self.own, &mut self.thresholds]
    }

    pub fn parts(&self) -> [&[f32]; 3] {
        [&self.factor, &self.own, &self.thresholds]
    }
}

/// The `x` a standard normal exceeds with probability `p` (0 < p ≤ 1), `Φ⁻¹(1 − p)`.
pub fn upper_quantile(p: f64) -> f64 {
    if p > 0.5 {
        return -upper_quantile(1.0 - p);
    }
    // The upper tail is convex and falling for x ≥ 0, so Newton's steps from 0 climb to the root.
    let tail = |x: f64| 0.5 * libm::erfc(x / std::f64::consts::SQRT_2);
    let density = |x: f64| (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let mut x = 0.0;
    for _ in 0..100 {
        let step = (tail(x) - p) / density(x);
        x += step;
        if step.abs() < 1e-12 * x.max(1.0) {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_upper_quantile_inverts_the_normal_tail() {
        // Known values of Φ⁻¹: 1.6448536269514722, 2.3263478740408408, 4.753424308822899.
        for (p, x) in [(0.05, 1.6448536269514722), (0.01, 2.3263478740408408), (1e-6, 4.753424308822899), (0.5, 0.0)] {
            assert!((upper_quantile(p) - x).abs() < 1e-9, "{p}: {}", upper_quantile(p));
            assert!((upper_quantile(1.0 - p) + x).abs() < 1e-9);
        }
    }

    #[test]
    fn a_feature_keeps_its_variance_one_and_too_much_shared_variance_is_capped() {
        let copula = Copula::new(Correlation { rank: 8, scale: 0.9 }, &[0.1; 50], 3);
        for (loadings, own) in copula.factor().chunks(8).zip(&copula.own) {
            let shared: f32 = loadings.iter().map(|f| f * f).sum();
            assert!((shared + own * own - 1.0).abs() < 1e-5 && own * own >= MIN_OWN - 1e-5);
        }
    }
}
