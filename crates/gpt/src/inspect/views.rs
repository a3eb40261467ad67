//! The data each "Inside the model" view shows, and the small computations over a trace that
//! fill it. `run/inside.rs` gathers them for a run.

use crate::inspect::heads::{HeadScores, Onset};
use crate::NextToken;
use serde::Serialize;

/// Histogram range of MLP pre-activations; values outside land in the end bins.
const PRE_ACTIVATION_RANGE: (f32, f32) = (-4.0, 4.0);
const HISTOGRAM_BINS: usize = 40;
/// The views, at the run's current step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inside<'a> {
    pub step: usize,
    pub n_layer: usize,
    pub n_head: usize,
    /// The probe, token by token, with how surprised the model was by each.
    pub probe: Vec<ProbeToken>,
    /// Mean loss at each position of the block, over the first held-out windows (empty
    /// without text).
    pub loss_by_position: Vec<f32>,
    pub embeddings: Embeddings,
    /// The learned position table; none with rotary embeddings, which have no table.
    pub positions: Option<Positions>,
    pub residual: Residual,
    pub mlp: Mlp,
    pub temperatures: Temperatures,
    /// The logit lens at the prompt's last token: the likeliest next tokens read off the
    /// residual stream after the embeddings (row 0) and after each layer (the last row is the
    /// model's own prediction).
    pub lens: Vec<Vec<NextToken>>,
    /// Every head's scores at each evaluation so far.
    pub heads: &'a [HeadScores],
    pub induction_onset: Option<Onset>,
}

/// One probe token: its text, the loss of predicting it (none for the first), and the model's
/// likeliest guesses at that position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProbeToken {
    pub token: String,
    pub loss: Option<f32>,
    pub guesses: Vec<NextToken>,
}

/// Token embeddings in 2-D: the top two principal components.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Embeddings {
    pub tokens: Vec<String>,
    /// (x, y) per token.
    pub points: Vec<[f32; 2]>,
    /// The share of the variance each axis explains.
    pub explained: Vec<f32>,
}

/// Position embeddings: the values (T × C) and the cosine similarity between positions (T × T).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Positions {
    pub t: usize,
    pub c: usize,
    pub values: Vec<f32>,
    pub cosine: Vec<f32>,
}

/// Norms over the probe's positions: of the residual stream entering each layer and leaving the
/// last ((L + 1) × T), and of what each layer's attention and MLP add to it (L × T).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Residual {
    pub t: usize,
    pub stream: Vec<f32>,
    pub attn: Vec<f32>,
    pub mlp: Vec<f32>,
}

/// Each layer's MLP on the probe: the share of neurons whose input is positive (active), and a
/// histogram of the inputs over `range`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mlp {
    pub active: Vec<f32>,
    pub histogram: Vec<Vec<u32>>,
    pub range: (f32, f32),
}

/// The next-token distribution after the prompt at several temperatures: for the likeliest
/// tokens at temperature 1, their probability at each temperature.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Temperatures {
    pub temperatures: Vec<f32>,
    pub tokens: Vec<String>,
    /// One row per temperature.
    pub probs: Vec<Vec<f32>>,
}

/// Attention snapshots on the held-out probe at each evaluation, to replay how heads formed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timelapse {
    pub tokens: Vec<String>,
    pub steps: Vec<usize>,
    /// Per snapshot, (L, nh, T, T).
    pub maps: Vec<Vec<f32>>,
}

pub(crate) fn norms(rows: &[f32], c: usize) -> impl Iterator<Item = f32> + '_ {
    rows.chunks_exact(c).map(|r| r.iter().map(|x| x * x).sum::<f32>().sqrt())
}

/// `softmax(logits / temperature)`, in place.
pub(crate) fn softmax_at(logits: &mut [f32], temperature: f32) {
    logits.iter_mut().for_each(|l| *l /= temperature);
    crate::ops::softmax_in_place(logits);
}

/// Active shares and histograms of each layer's MLP inputs.
pub(crate) fn mlp_stats(pre_activations: &[Vec<f32>]) -> Mlp {
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
