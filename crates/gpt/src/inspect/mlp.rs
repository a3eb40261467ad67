//! The MLP neurons: per layer, the share whose input is positive (active) on the probe, and a
//! histogram of the inputs.

use super::look::{value, Look};
use crate::error::Result;
use serde::Serialize;

/// Histogram range of MLP pre-activations; values outside land in the end bins.
const PRE_ACTIVATION_RANGE: (f32, f32) = (-4.0, 4.0);
const HISTOGRAM_BINS: usize = 40;

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Mlp {
    pub active: Vec<f32>,
    pub histogram: Vec<Vec<u32>>,
    pub range: (f32, f32),
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    value(mlp_stats(&look.trace()?.pre_activations))
}

/// Active shares and histograms of each layer's MLP inputs.
fn mlp_stats(pre_activations: &[Vec<f32>]) -> Mlp {
    let (lo, hi) = PRE_ACTIVATION_RANGE;
    let bin = |x: f32| {
        (((x - lo) / (hi - lo) * HISTOGRAM_BINS as f32) as isize).clamp(0, HISTOGRAM_BINS as isize - 1) as usize
    };
    let active =
        pre_activations.iter().map(|p| p.iter().filter(|&&x| x > 0.0).count() as f32 / p.len().max(1) as f32).collect();
    let histogram = pre_activations
        .iter()
        .map(|p| {
            let mut counts = vec![0u32; HISTOGRAM_BINS];
            p.iter().filter(|x| x.is_finite()).for_each(|&x| counts[bin(x)] += 1);
            counts
        })
        .collect();
    Mlp { active, histogram, range: PRE_ACTIVATION_RANGE }
}
