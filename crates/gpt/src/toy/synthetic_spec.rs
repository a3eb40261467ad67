//! What synthetic activations are built from (`synthetic.rs` builds them), as SAELens's
//! `sae_lens.synthetic` configures them: how many features in how many dimensions, orthogonal or
//! random, how often each fires (all alike, or Zipf's law), with what magnitude, in what
//! hierarchy and how correlated; checked with what would fix them.

use super::correlation::{Correlation, MAX_RANK};
use crate::error::{Error, Result};
use crate::words::toy;
use serde::{Deserialize, Serialize};

/// The most features, and the most dimensions.
pub const MAX_FEATURES: usize = 1 << 16;
pub const MAX_DIMS: usize = 4096;
/// The most features pushed apart (their overlaps, n × n, are held at once).
pub const MAX_PUSHED_APART: usize = 2048;

/// How often each feature fires.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Firing {
    /// Every feature with the same probability.
    Equal { probability: f32 },
    /// Feature `i` (from 0) as `1 / (i + 1)^exponent`, scaled to run from `max` to `min`
    /// (SAELens's `zipfian_firing_probabilities`).
    Zipf { exponent: f32, max: f32, min: f32 },
}

/// What the activations are built from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SyntheticSpec {
    /// `n`: the true features.
    pub features: usize,
    /// `d`: the activations' dimensions.
    pub dims: usize,
    /// Orthogonal directions (up to `d` of them; more are pushed as nearly orthogonal as they can
    /// be, as SAELens's `orthogonal_initializer` does, up to [`MAX_PUSHED_APART`]), else random
    /// unit vectors.
    pub orthogonal: bool,
    pub firing: Firing,
    /// A firing feature's magnitude: the mean, and the spread of the normal around it.
    pub magnitude_mean: f32,
    pub magnitude_std: f32,
    /// Children per parent in a hierarchy (0: none): features come in groups of a parent and
    /// its children, a child firing only when its parent does.
    #[serde(default)]
    pub children: usize,
    /// Features firing together (none: each on its own).
    #[serde(default)]
    pub correlation: Option<Correlation>,
    pub seed: u64,
}

impl Default for SyntheticSpec {
    /// 256 features in 64 dimensions, each firing one time in 100 with magnitude 1.
    fn default() -> SyntheticSpec {
        SyntheticSpec {
            features: 256,
            dims: 64,
            orthogonal: false,
            firing: Firing::Equal { probability: 0.01 },
            magnitude_mean: 1.0,
            magnitude_std: 0.0,
            children: 0,
            correlation: None,
            seed: 1337,
        }
    }
}

impl SyntheticSpec {
    /// Why these settings cannot build activations, if they cannot.
    pub fn validate(&self) -> Result<()> {
        let fail = |words| Err(Error::Config(words));
        if !(1..=MAX_FEATURES).contains(&self.features) || !(1..=MAX_DIMS).contains(&self.dims) {
            return fail(toy::synthetic_size(MAX_FEATURES, MAX_DIMS, self.features, self.dims));
        }
        if self.orthogonal && self.features > self.dims.max(MAX_PUSHED_APART) {
            return fail(toy::orthogonal(MAX_PUSHED_APART, self.features));
        }
        let probability = |p: f32| p.is_finite() && p > 0.0 && p <= 1.0;
        match self.firing {
            Firing::Equal { probability: p } if !probability(p) => return fail(toy::firing(p)),
            Firing::Zipf { exponent, max, min }
                if !(exponent > 0.0 && probability(max) && probability(min) && min < max) =>
            {
                return fail(toy::zipf(exponent, min, max))
            }
            _ => {}
        }
        if !(self.magnitude_mean.is_finite() && self.magnitude_mean > 0.0 && self.magnitude_std >= 0.0) {
            return fail(toy::magnitude(self.magnitude_mean, self.magnitude_std));
        }
        if self.children >= self.features {
            return fail(toy::children(self.children, self.features));
        }
        if let Some(c) = self.correlation.filter(|c| !c.is_valid()) {
            return fail(toy::correlation(MAX_RANK, c.rank, c.scale));
        }
        Ok(())
    }

    /// Each feature's firing probability.
    pub fn probabilities(&self) -> Vec<f32> {
        match self.firing {
            Firing::Equal { probability } => vec![probability; self.features],
            Firing::Zipf { .. } if self.features == 1 => vec![self.max_probability()],
            Firing::Zipf { exponent, max, min } => {
                let raw: Vec<f32> = (0..self.features).map(|i| ((i + 1) as f32).powf(-exponent)).collect();
                let (lo, hi) = (raw[self.features - 1], raw[0]);
                raw.iter().map(|r| min + (max - min) * (r - lo) / (hi - lo)).collect()
            }
        }
    }

    fn max_probability(&self) -> f32 {
        match self.firing {
            Firing::Equal { probability } => probability,
            Firing::Zipf { max, .. } => max,
        }
    }

    /// Feature `i`'s parent in the hierarchy, if it is a child.
    pub fn parent(&self, i: usize) -> Option<usize> {
        let group = self.children + 1;
        (self.children > 0 && !i.is_multiple_of(group)).then_some(i - i % group)
    }
}
