//! What each evaluation records for the testing views, kept in the run's history under each
//! record's name and saved with it: every part's ablation cost (`ablation.rs`), the heads'
//! composition (`composition.rs`) and grokking's progress measures (`fourier.rs`). Plain data, so
//! the history needs nothing else.

use crate::train::Record;
use serde::{Deserialize, Serialize};

/// What replaces the knocked-out output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Fill {
    Zero,
    #[default]
    Mean,
}

/// Held-out loss and, for a task, accuracy (share of rows exactly right), with the model whole.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Score {
    pub loss: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f32>,
}

/// Every head's and every MLP's ablation cost at one step: the held-out loss each adds, and the
/// held-out accuracy each takes away (empty for text). Heads layer after layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct AblationGrid {
    pub step: usize,
    pub fill: Fill,
    pub rows: usize,
    pub whole: Score,
    pub head_loss: Vec<f32>,
    pub head_accuracy: Vec<f32>,
    pub mlp_loss: Vec<f32>,
    pub mlp_accuracy: Vec<f32>,
}

impl Record for AblationGrid {
    const NAME: &'static str = "ablations";
}

/// Every pair's scores at one step, each [layer l][head in l][head in l + 1], flat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Composition {
    pub step: usize,
    pub q: Vec<f32>,
    pub k: Vec<f32>,
    pub v: Vec<f32>,
}

impl Record for Composition {
    const NAME: &'static str = "composition";
}

/// The measures at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FourierPoint {
    pub step: usize,
    /// The embedding's norm at frequency 0 (constant), 1, …, (p − 1) / 2.
    pub norms: Vec<f32>,
    /// The key frequencies, strongest first.
    pub key: Vec<usize>,
    /// Loss on every problem with only the key frequencies (and the constant) kept in the logits.
    pub restricted_loss: f32,
    /// Loss on the training problems with the key frequencies removed from the logits.
    pub excluded_loss: f32,
    /// The plain losses on the same logits: training problems, held-out problems.
    pub train_loss: f32,
    pub test_loss: f32,
}

impl Record for FourierPoint {
    const NAME: &'static str = "fourier";
}

/// The circuit at one step: every edge's score under one corruption (exact, or EAP-IG where
/// patching every edge would cost too much), and the circuit that ranking finds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct CircuitPoint {
    pub step: usize,
    /// `exact` or `eap_ig`.
    pub method: String,
    pub corruption: super::circuit::request::Corruption,
    /// Pairs averaged over, and the share the model answers right on both sides (the clean
    /// answer first on the clean prompt, the corrupted one on the corrupted prompt).
    pub pairs: usize,
    pub answered: f32,
    /// The metric's mean over the pairs, clean and corrupted.
    pub clean: f32,
    pub corrupted: f32,
    /// Each edge's score, in the graph's order.
    pub scores: Vec<f32>,
    /// The fewest edges by that ranking that keep 90% of the metric (none while the corruption
    /// changes nothing the metric reads), and the share they keep.
    pub edges: Vec<usize>,
    pub faithfulness: f32,
    pub reached: bool,
}

impl Record for CircuitPoint {
    const NAME: &'static str = "circuits";
}
