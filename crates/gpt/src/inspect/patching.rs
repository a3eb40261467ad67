//! Activation patching (Meng et al. 2022; Wang et al. 2022): run the corrupted input with one
//! part's output taken from the clean run, and measure how much of the logit difference between
//! the clean answer and the corrupted one it restores: 0 none, 1 all of it. Each head's output (at
//! every position), and the residual stream entering each layer at each position.

use super::look::{token_texts, value, Look};
use super::question::Pair;
use crate::error::Result;
use crate::model::{head_columns, Edit, Site};
use crate::Run;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Patching {
    /// Each input's tokens, as text.
    pub clean: Vec<String>,
    pub corrupted: Vec<String>,
    pub clean_text: String,
    pub corrupted_text: String,
    pub answer: String,
    pub wrong: String,
    /// The same as token ids, for another implementation to check against.
    pub ids: PairIds,
    /// logit(answer) − logit(wrong) at the last position, on each input.
    pub clean_difference: f32,
    pub corrupted_difference: f32,
    /// The share each head's clean output restores, heads layer after layer.
    pub heads: Vec<f32>,
    /// The share the clean residual stream restores, entering each layer, at each position
    /// (layer after layer, T each).
    pub residual: Vec<f32>,
}

/// A pair's token ids.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct PairIds {
    pub clean: Vec<usize>,
    pub corrupted: Vec<usize>,
    pub answer: usize,
    pub wrong: usize,
}

impl Run {
    /// Patches every head and every residual position of `pair`'s clean run into its corrupted one.
    pub fn patch(&self, pair: &Pair) -> Result<Patching> {
        let model = self.model();
        let cfg = model.config();
        let (t, hs, c) = (pair.clean.len(), cfg.n_embd / cfg.n_head, cfg.n_embd);
        let clean = model.trace(&pair.clean)?;
        let difference = |edits: &[Edit]| -> Result<f32> {
            let logits = model.logits_edited(&pair.corrupted, 1, t, edits)?;
            Ok(logit_difference(logits.as_slice().expect("fresh logits"), t, pair))
        };
        let clean_difference = logit_difference(&clean.logits, t, pair);
        let corrupted_difference = difference(&[])?;
        let share = |d: f32| (d - corrupted_difference) / (clean_difference - corrupted_difference);
        let mut heads = Vec::with_capacity(cfg.n_layer * cfg.n_head);
        for (layer, z) in clean.heads.iter().enumerate() {
            for head in 0..cfg.n_head {
                let with = head_columns(z, c, head, hs);
                heads.push(share(difference(&[Edit { site: Site::Head { layer, head }, with }])?));
            }
        }
        let mut residual = Vec::with_capacity(cfg.n_layer * t);
        for layer in 0..cfg.n_layer {
            for position in 0..t {
                let with = clean.residual[layer][position * c..(position + 1) * c].to_vec();
                residual.push(share(difference(&[Edit { site: Site::Residual { layer, position }, with }])?));
            }
        }
        Ok(Patching {
            clean: token_texts(self, &pair.clean),
            corrupted: token_texts(self, &pair.corrupted),
            clean_text: pair.clean_text.clone(),
            corrupted_text: pair.corrupted_text.clone(),
            answer: self.tokenizer().token_text(pair.answer as u32),
            wrong: self.tokenizer().token_text(pair.wrong as u32),
            ids: PairIds {
                clean: pair.clean.clone(),
                corrupted: pair.corrupted.clone(),
                answer: pair.answer,
                wrong: pair.wrong,
            },
            clean_difference,
            corrupted_difference,
            heads,
            residual,
        })
    }
}

/// logit(answer) − logit(wrong) at the last of `t` positions of `logits` (T, V).
pub fn logit_difference(logits: &[f32], t: usize, pair: &Pair) -> f32 {
    let last = &logits[logits.len() / t * (t - 1)..];
    last[pair.answer] - last[pair.wrong]
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let q = &look.questions;
    value(look.run.patch(&look.run.question_pair(&q.clean, &q.corrupted)?)?)
}
