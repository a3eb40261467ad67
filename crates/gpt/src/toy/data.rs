//! What the toy model of superposition reads: rows of `n` features, each 0 with probability `S`
//! (the sparsity) and else uniform in [0, 1], as Elhage et al. draw them. A batch row is a seed
//! ([`ToyData`] hands them out, training and held-out seeds apart) from which a row's features
//! are drawn, so any worker given the seeds draws the same rows.

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::train::Batches;
use crate::words::toy;
use crate::work::Split;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// The most features, and hidden dimensions, a toy model has here.
pub const MAX_FEATURES: usize = 512;

/// A toy model's shape and the features it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ToySettings {
    /// `n`: the features.
    pub features: usize,
    /// `m`: the hidden dimensions they are squeezed into.
    pub hidden: usize,
    /// `S`: the chance a feature is 0 in a row.
    pub sparsity: f32,
    /// `r`: feature `i`'s importance is `r^i` (1: all alike).
    pub importance_decay: f32,
    /// The last feature's importance instead, every other one's being 1: the extra feature of
    /// Elhage's phase diagrams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_importance: Option<f32>,
    #[serde(default)]
    pub variant: Variant,
}

/// Which of Elhage's models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// `x' = ReLU(x W Wᵀ + b)`: the model that superposes.
    #[default]
    ReluOutput,
    /// `x' = x W Wᵀ + b`: it stores only as many features as it has dimensions (PCA).
    Linear,
    /// `x' = ReLU(ReLU(x W) Wᵀ + b)`: a privileged basis in the hidden layer.
    ReluHidden,
}

impl Default for ToySettings {
    /// Elhage's pentagon: 5 features in 2 dimensions, sparse enough to store all five.
    fn default() -> ToySettings {
        ToySettings {
            features: 5,
            hidden: 2,
            sparsity: 0.9,
            importance_decay: 0.9,
            last_importance: None,
            variant: Variant::ReluOutput,
        }
    }
}

impl ToySettings {
    /// Why these settings cannot make a model, if they cannot.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_FEATURES).contains(&self.features) {
            return Err(Error::Config(toy::features(MAX_FEATURES, self.features)));
        }
        if !(1..=self.features).contains(&self.hidden) {
            return Err(Error::Config(toy::hidden(self.features, self.hidden)));
        }
        if !(self.sparsity.is_finite() && (0.0..1.0).contains(&self.sparsity)) {
            return Err(Error::Config(toy::sparsity(self.sparsity)));
        }
        if !(self.importance_decay.is_finite() && self.importance_decay > 0.0 && self.importance_decay <= 1.0) {
            return Err(Error::Config(toy::importance_decay(self.importance_decay)));
        }
        if let Some(last) = self.last_importance.filter(|x| !(x.is_finite() && *x > 0.0)) {
            return Err(Error::Config(toy::last_importance(last)));
        }
        Ok(())
    }

    /// `I_i = r^i`, feature by feature; or 1 but for the last, `last_importance`.
    pub fn importance(&self) -> Vec<f32> {
        match self.last_importance {
            Some(last) => (0..self.features).map(|i| if i + 1 == self.features { last } else { 1.0 }).collect(),
            None => (0..self.features).map(|i| self.importance_decay.powi(i as i32)).collect(),
        }
    }
}

/// The features a row's seed draws: (seeds, n), row after row.
pub fn features_of(settings: &ToySettings, seeds: &[usize]) -> Vec<f32> {
    let n = settings.features;
    let present = 1.0 - settings.sparsity;
    let mut x = Vec::with_capacity(seeds.len() * n);
    for &seed in seeds {
        let mut rng = Rng::new(ROW_STREAM ^ seed as u64);
        x.extend((0..n).map(|_| {
            let (keep, value) = (rng.uniform(), rng.uniform());
            if keep < present {
                value
            } else {
                0.0
            }
        }));
    }
    x
}

/// Mixed into a row's seed so that its stream is its own, not the trainer's.
const ROW_STREAM: u64 = 0x70_79_2d_73_75_70_65_72;
/// Held-out rows' seeds have their top bit set; training rows' never do.
const HELD_OUT: u32 = 1 << 31;

/// Rows of features as the trainer asks for them: a seed per row. Kept, if asked, are the
/// training batches' seeds, for a check to replay the very rows (`gpt superposition --trace`).
#[derive(Default)]
pub struct ToyData {
    kept: Option<Mutex<Vec<Vec<u32>>>>,
}

impl ToyData {
    /// Rows that keep each training batch's seeds.
    pub fn keeping() -> ToyData {
        ToyData { kept: Some(Mutex::default()) }
    }

    /// The seeds of each training batch so far, if kept.
    pub fn kept(&self) -> Vec<Vec<u32>> {
        self.kept.as_ref().map_or_else(Vec::new, |k| k.lock().map_or_else(|e| e.into_inner().clone(), |k| k.clone()))
    }
}

impl Batches for ToyData {
    fn seq_len(&self, _block_size: usize) -> usize {
        1
    }

    fn batch(&self, split: Split, batch: usize, _block: usize, rng: &mut Rng, x: &mut Vec<u32>, y: &mut Vec<u32>) {
        let held = if matches!(split, Split::Val) { HELD_OUT } else { 0 };
        x.clear();
        y.clear();
        x.extend((0..batch).map(|_| ((rng.next_u64() >> 32) as u32 & !HELD_OUT) | held));
        y.resize(batch, 0);
        if let (Some(kept), Split::Train) = (&self.kept, split) {
            kept.lock().unwrap_or_else(|e| e.into_inner()).push(x.clone());
        }
    }

    fn scores_answers(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feature_is_present_one_time_in_one_minus_s_and_uniform_when_it_is() {
        let settings = ToySettings { features: 4, sparsity: 0.75, ..ToySettings::default() };
        let seeds: Vec<usize> = (0..20_000).collect();
        let x = features_of(&settings, &seeds);
        let present = x.iter().filter(|v| **v > 0.0).count() as f32 / x.len() as f32;
        assert!((present - 0.25).abs() < 0.01, "{present}");
        let mean = x.iter().filter(|v| **v > 0.0).sum::<f32>() / x.iter().filter(|v| **v > 0.0).count() as f32;
        assert!((mean - 0.5).abs() < 0.01, "{mean}");
        assert_eq!(features_of(&settings, &[7]), features_of(&settings, &[7]), "a seed draws the same row again");
    }

    #[test]
    fn held_out_seeds_are_never_training_seeds() {
        let mut rng = Rng::new(1);
        let (mut x, mut y) = (vec![], vec![]);
        ToyData::default().batch(Split::Train, 64, 1, &mut rng, &mut x, &mut y);
        assert!(x.iter().all(|s| s & HELD_OUT == 0));
        ToyData::default().batch(Split::Val, 64, 1, &mut rng, &mut x, &mut y);
        assert!(x.iter().all(|s| s & HELD_OUT != 0));
    }

    #[test]
    fn settings_out_of_range_say_which() {
        let bad = |s: ToySettings| s.validate().unwrap_err().to_string();
        assert!(bad(ToySettings { hidden: 6, ..ToySettings::default() }).contains("hidden"));
        assert!(bad(ToySettings { sparsity: 1.0, ..ToySettings::default() }).contains("sparsity"));
        assert!(bad(ToySettings { importance_decay: 0.0, ..ToySettings::default() }).contains("importance"));
        assert!(bad(ToySettings { features: 0, ..ToySettings::default() }).contains("features"));
    }
}
