//! What every built model's weights are made of: matrices zero but for a few cells, and what a
//! LayerNorm makes of a stream whose values are the same at every position, in some order.

use crate::error::Result;
use crate::ops::{Activation, NormKind};
use crate::params::Params;
use crate::{GPTConfig, Settings, TaskConfig, TrainConfig};
use ndarray::{Array2, ArrayD};

/// Every built model's channels, and its heads in each layer.
pub(super) const WIDTH: usize = 128;
pub(super) const HEADS: usize = 2;
/// Each head's channels.
pub(super) const HEAD: usize = WIDTH / HEADS;

/// How far a head's match outscores every other position, before its softmax.
pub(super) const MARGIN: f32 = 30.0;
/// How far the answer's logit outscores every other symbol's.
pub(super) const LOGIT: f32 = 20.0;

/// The settings of a built model of `layers` layers on `task` (with `options`), `vocab` symbols and
/// `block` positions: LayerNorm without biases, learned positions, an output layer of its own.
/// Its recipe trains 20 steps at a rate too low to move it, evaluating 640 held-out problems at 0,
/// 10 and 20: Train checks it. (At a usual rate, training moves it from its answer and its circuit:
/// the backup model's thresholds are read at 50 times the scale they are written.)
pub(super) fn settings(
    task: &str,
    options: serde_json::Value,
    (vocab, block, layers): (usize, usize, usize),
) -> Settings {
    let task = TaskConfig::new(crate::data::task_named(task).expect("a task"), options, 0.9);
    let model = GPTConfig {
        vocab_size: vocab,
        block_size: block,
        n_layer: layers,
        n_head: HEADS,
        n_embd: WIDTH,
        dropout: 0.0,
        bias: false,
        norm: NormKind::LayerNorm,
        activation: Activation::Relu,
        tie_weights: false,
        rope: false,
        qk_norm: false,
    };
    let train = TrainConfig {
        batch_size: 32,
        eval_iters: 20,
        max_iters: 20,
        warmup_iters: 10,
        eval_interval: Some(10),
        learning_rate: 1e-6,
        min_lr: 1e-7,
        ..TrainConfig::default()
    };
    Settings { model, train, task: Some(task), ..Settings::default() }
}

/// One-hot embeddings: each of `vocab` tokens into the block at `token`, each of `block`
/// positions into the block at `position`.
pub(super) fn embeddings(
    p: &mut Params,
    (vocab, block): (usize, usize),
    (token, position): (usize, usize),
) -> Result<()> {
    let tokens: Vec<_> = (0..vocab).map(|v| (v, token + v, 1.0)).collect();
    matrix(p, "transformer.wte.weight", (vocab, WIDTH), &tokens)?;
    let positions: Vec<_> = (0..block).map(|t| (t, position + t, 1.0)).collect();
    matrix(p, "transformer.wpe.weight", (block, WIDTH), &positions)
}

/// Sets the parameter `name` to a `rows` × `cols` matrix, zero but for `cells` (row, column, value).
pub(super) fn matrix(
    p: &mut Params,
    name: &str,
    (rows, cols): (usize, usize),
    cells: &[(usize, usize, f32)],
) -> Result<()> {
    let mut m = Array2::<f32>::zeros((rows, cols));
    cells.iter().for_each(|&(r, c, v)| m[(r, c)] = v);
    p.set(name, m.into_dyn())
}

/// Zeroes every MLP's weights of a model of `layers` layers: its MLPs write nothing.
pub(super) fn no_mlps(p: &mut Params, layers: usize) -> Result<()> {
    for layer in 0..layers {
        for part in ["c_fc", "c_proj"] {
            let name = format!("transformer.h.{layer}.mlp.{part}.weight");
            let shape = p.get(&name).expect("an MLP").shape().to_vec();
            p.set(&name, ArrayD::zeros(shape))?;
        }
    }
    Ok(())
}

/// What a LayerNorm (weight 1, no bias) makes of a stream of `width` channels holding `values`
/// and zeros: it scales by `scale` and takes away `shift` (its mean, scaled).
pub(super) struct Stats {
    pub scale: f32,
    pub shift: f32,
}

impl Stats {
    pub(super) fn of(values: &[f32], width: usize) -> Stats {
        let n = width as f32;
        let mean = values.iter().sum::<f32>() / n;
        let var =
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() + (width - values.len()) as f32 * mean * mean) / n;
        let scale = 1.0 / (var + 1e-5).sqrt();
        Stats { scale, shift: mean * scale }
    }

    /// The mean of the stream it normalises.
    pub(super) fn mean(&self) -> f32 {
        self.shift / self.scale
    }

    /// The weight of a query's and a key's one-hot cells that makes a match outscore every
    /// other position by `margin` in a head of `head` channels (scores are divided by √head).
    pub(super) fn match_weight(&self, margin: f32, head: usize) -> f32 {
        (margin * (head as f32).sqrt()).sqrt() / self.scale
    }
}

/// A one-hot code of `letters` written by a head from the normalised stream: one where the letter
/// is, less the stream's `mean`.
pub(super) fn code(letters: usize, mean: f32) -> Vec<f32> {
    let mut values = vec![1.0 - mean];
    values.extend(std::iter::repeat_n(-mean, letters - 1));
    values
}
