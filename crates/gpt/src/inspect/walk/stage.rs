//! One stage of the walk as a figure: its words (title, hook, shape, code, what it does) and its
//! numbers (a strip or a matrix), with a builder the forward and backward passes share.

use crate::model::Hooked;
use crate::words::{Value, Words};
use serde::Serialize;

/// One stage of the walk: a value the pass computes (or its gradient), as a figure.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Stage {
    /// TransformerLens's hook points the figure holds, in its names: one (`blocks.0.attn.hook_z`),
    /// or one a row where the rows are different values (a closed block's: what its attention and
    /// its MLP add, and the stream after). None where TransformerLens has no hook: the token ids
    /// `run_with_cache` is given, and the logits it returns.
    pub hooks: Vec<String>,
    pub title: Words,
    /// Its shape as nanoGPT's comments write it, with the sizes: `(B, T, C) = (1, 12, 64)`.
    pub shape: String,
    /// The line of nanoGPT's `model.py` (or of the playground's PyTorch model for RoPE and QK-norm).
    pub code: String,
    /// What it does, in a sentence.
    pub what: Words,
    /// The figure: `rows` × `cols` values, row after row (one row: a strip).
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f32>,
    /// Each row's label (the tokens, for a matrix over positions), and the row followed.
    #[cfg_attr(feature = "ts", tsify(type = "WordsValue[]"))]
    pub row_labels: Vec<Value>,
    pub focus_row: Option<usize>,
    /// Cells above the diagonal are masked (causal attention's scores, −∞ there as TransformerLens
    /// holds them, which JSON writes as null; and its pattern, 0 there).
    pub causal: bool,
    /// The values are whole numbers (token ids).
    pub whole: bool,
    /// A few figures worth reading off (a norm's mean and spread, the share of neurons firing).
    pub notes: Vec<Note>,
}

/// A figure worth reading off a stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Note {
    pub label: Words,
    pub value: f32,
}

/// A stage being written: its words, then its figure. `hook` is TransformerLens's hook point for
/// it, or "" where it has none.
pub(super) fn stage(hook: &str, title: Words, shape: String, code: &str, what: Words) -> Stage {
    let hooks = if hook.is_empty() { vec![] } else { vec![hook.to_string()] };
    let (code, rows, cols, values) = (code.to_string(), 0, 0, vec![]);
    let (row_labels, focus_row, causal, whole, notes) = (vec![], None, false, false, vec![]);
    Stage { hooks, title, shape, code, what, rows, cols, values, row_labels, focus_row, causal, whole, notes }
}

impl Stage {
    /// A strip of `values`.
    pub(super) fn strip(self, values: Vec<f32>) -> Stage {
        Stage { rows: 1, cols: values.len(), values, ..self }
    }

    /// A `rows` × `cols` matrix of `values`, its rows labelled, row `focus` the one followed.
    pub(super) fn matrix(self, cols: usize, values: Vec<f32>, labels: Vec<String>, focus: Option<usize>) -> Stage {
        self.labelled(cols, values, labels.into_iter().map(Value::from).collect(), focus)
    }

    /// A matrix whose rows are labelled by `labels`, words or tokens.
    fn labelled(self, cols: usize, values: Vec<f32>, labels: Vec<Value>, focus: Option<usize>) -> Stage {
        Stage { rows: values.len() / cols.max(1), cols, values, row_labels: labels, focus_row: focus, ..self }
    }

    /// A matrix whose rows are the hook points `hooks`, labelled `labels`, each at one position.
    pub(super) fn rows_of(self, hooks: Vec<String>, labels: Vec<Words>, values: Vec<f32>, cols: usize) -> Stage {
        Stage { hooks, ..self.labelled(cols, values, labels.into_iter().map(Value::from).collect(), None) }
    }

    pub(super) fn noting(mut self, label: Words, value: f32) -> Stage {
        self.notes.push(Note { label, value });
        self
    }
}

/// Row `p` of a hook point's (1, T, D) value.
pub(super) fn row(hooked: &Hooked, name: &str, p: usize) -> Vec<f32> {
    let v = hooked.get(name).map_or(&[][..], |v| &v.values[..]);
    let d = v.len() / hooked.t.max(1);
    v.get(p * d..(p + 1) * d).map_or_else(Vec::new, <[f32]>::to_vec)
}

/// Columns `from..from + width` of every row of a (1, T, D) value (a head's part of q, k or v).
pub(super) fn columns(values: &[f32], t: usize, from: usize, width: usize) -> Vec<f32> {
    let d = values.len() / t.max(1);
    (0..t).flat_map(|i| values[i * d + from..i * d + from + width].iter().copied()).collect()
}
