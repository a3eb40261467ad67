//! Induction set by hand on the repeat task (`bdcabdca`): a previous-token head in layer 1 that
//! attends by position and writes each position's previous token, and an induction head in layer 2
//! whose query is the current token and whose key is that previous token (K-composition), copying
//! the token it finds through its values into the logits. Every other head and both MLPs are zero.
//!
//! The residual stream holds four blocks of one-hot codes: the token, the position, the previous
//! token and the answer. Every position holds the same values in some order, so each LayerNorm
//! divides every position by the same spread and takes away the same mean: an affine map the
//! weights below undo (`Stats`).

use super::{Built, Truth};
use crate::error::Result;
use crate::inspect::circuit::Corruption;
use crate::ops::NormKind;
use crate::params::Params;
use crate::{GPTConfig, Settings, TaskConfig, TrainConfig};
use ndarray::{Array2, ArrayD};

const LETTERS: usize = 26;
const LENGTH: usize = 16;
const BLOCK: usize = 2 * LENGTH;
const HEADS: usize = 2;
const C: usize = 128;
const HEAD: usize = C / HEADS;
/// Where each block of the stream starts.
const TOKEN: usize = 0;
const POSITION: usize = TOKEN + LETTERS;
const PREVIOUS: usize = POSITION + BLOCK;
const ANSWER: usize = PREVIOUS + LETTERS;
/// How far a head's match outscores every other position, before its softmax.
const MARGIN: f32 = 30.0;
/// How far the answer's logit outscores every other letter's.
const LOGIT: f32 = 20.0;

pub(super) const INDUCTION: Built = Built {
    name: "induction",
    description: "a previous-token head (L1H1) and an induction head reading it through its key (L2H1)",
    settings,
    set,
    truth: &[
        Truth { corruption: Corruption::Symbol, edges: &["input->a1.h0<v>", "a1.h0->logits"] },
        Truth {
            corruption: Corruption::Swap,
            edges: &["input->a0.h0<v>", "a0.h0->a1.h0<k>", "input->a1.h0<v>", "a1.h0->logits"],
        },
    ],
};

fn settings() -> Settings {
    let task = crate::data::task_named("repeat").expect("a task");
    let task = TaskConfig::new(task, serde_json::json!({"length": LENGTH, "symbols": LETTERS}), 0.9);
    let model = GPTConfig {
        vocab_size: LETTERS,
        block_size: BLOCK,
        n_layer: 2,
        n_head: HEADS,
        n_embd: C,
        dropout: 0.0,
        bias: false,
        norm: NormKind::LayerNorm,
        tie_weights: false,
        rope: false,
        qk_norm: false,
        ..GPTConfig::default()
    };
    // Evaluations read 640 held-out problems; training on would only move it from its answer.
    let train = TrainConfig { batch_size: 32, eval_iters: 20, max_iters: 100, ..TrainConfig::default() };
    Settings { model, train, task: Some(task), ..Settings::default() }
}

/// What a LayerNorm makes of a stream holding `values` (in any order): one over its spread, and
/// its mean over its spread.
struct Stats {
    scale: f32,
    shift: f32,
}

impl Stats {
    fn of(values: &[f32]) -> Stats {
        let mean = values.iter().sum::<f32>() / C as f32;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / C as f32
            + (C - values.len()) as f32 * mean * mean / C as f32;
        let scale = 1.0 / (var + 1e-5).sqrt();
        Stats { scale, shift: mean * scale }
    }
}

/// A block's code after the head that writes it: one where the letter is, less the mean.
fn code(mean: f32) -> Vec<f32> {
    let mut values = vec![1.0 - mean];
    values.extend(std::iter::repeat_n(-mean, LETTERS - 1));
    values
}

fn set(p: &mut Params) -> Result<()> {
    let zeros = |shape: &[usize]| ArrayD::<f32>::zeros(shape);
    let mut matrix = |name: &str, rows: usize, cols: usize, cells: &[(usize, usize, f32)]| -> Result<()> {
        let mut m = Array2::<f32>::zeros((rows, cols));
        cells.iter().for_each(|&(r, c, v)| m[(r, c)] = v);
        p.set(name, m.into_dyn())
    };
    matrix("transformer.wte.weight", LETTERS, C, &(0..LETTERS).map(|v| (v, TOKEN + v, 1.0)).collect::<Vec<_>>())?;
    matrix("transformer.wpe.weight", BLOCK, C, &(0..BLOCK).map(|t| (t, POSITION + t, 1.0)).collect::<Vec<_>>())?;
    let first = Stats::of(&[1.0, 1.0]);
    let after_first: Vec<f32> = [vec![1.0, 1.0], code(first.shift / first.scale)].concat();
    let second = Stats::of(&after_first);
    let last = Stats::of(&[after_first, code(second.shift / second.scale)].concat());
    // Layer 1, head 1: the query at position t matches the key at t − 1; the value is the token,
    // written into the previous token's block.
    let a = (MARGIN * (HEAD as f32).sqrt()).sqrt() / first.scale;
    let mut cells: Vec<(usize, usize, f32)> = (0..BLOCK).map(|t| (t, POSITION + t, a)).collect();
    cells.extend((1..BLOCK).map(|t| (C + t, POSITION + t - 1, a)));
    cells.extend((0..LETTERS).map(|v| (2 * C + v, TOKEN + v, 1.0)));
    matrix("transformer.h.0.attn.c_attn.weight", 3 * C, C, &cells)?;
    let out: Vec<_> = (0..LETTERS).map(|v| (PREVIOUS + v, v, 1.0 / first.scale)).collect();
    matrix("transformer.h.0.attn.c_proj.weight", C, C, &out)?;
    // Layer 2, head 1: the query is the token, the key the previous token; the value the token,
    // written into the answer's block.
    let a = (MARGIN * (HEAD as f32).sqrt()).sqrt() / second.scale;
    let mut cells: Vec<(usize, usize, f32)> = (0..LETTERS).map(|v| (v, TOKEN + v, a)).collect();
    cells.extend((0..LETTERS).map(|v| (C + v, PREVIOUS + v, a)));
    // Position 0 has no previous token, and its previous-token head, with nowhere else to look,
    // wrote its own: its key is lowered below any other.
    cells.extend((0..LETTERS).map(|v| (C + v, POSITION, -3.0 * a)));
    cells.extend((0..LETTERS).map(|v| (2 * C + v, TOKEN + v, 1.0)));
    matrix("transformer.h.1.attn.c_attn.weight", 3 * C, C, &cells)?;
    let out: Vec<_> = (0..LETTERS).map(|v| (ANSWER + v, v, 1.0 / second.scale)).collect();
    matrix("transformer.h.1.attn.c_proj.weight", C, C, &out)?;
    let unembed: Vec<_> = (0..LETTERS).map(|v| (v, ANSWER + v, LOGIT / last.scale)).collect();
    matrix("lm_head.weight", LETTERS, C, &unembed)?;
    for layer in 0..2 {
        for part in ["c_fc", "c_proj"] {
            let name = format!("transformer.h.{layer}.mlp.{part}.weight");
            let shape = p.get(&name).expect("an MLP").shape().to_vec();
            p.set(&name, zeros(&shape))?;
        }
    }
    Ok(())
}
