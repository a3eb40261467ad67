//! Testing what a feature does: which features fire on each token of a typed text; knocking a
//! feature out (its activation times its direction taken from the activations, at every token)
//! and scoring the held-out rows again, with the problems whose answer flips; and steering
//! generation by adding a feature's direction, at a chosen strength, to the activations at every
//! position.

use super::training::Watch;
use super::Run;
use crate::error::{Error, Result};
use crate::sae::{Codes, Sae, SaeTrainee};
use crate::sample::{SampleConfig, Sampler};
use crate::words::dictionaries;
use crate::work::Batch;
use crate::workspace::Workspace;
use serde::Serialize;

/// Problems a knockout lists by name, of those whose answer flipped.
pub const SHOWN_FLIPS: usize = 12;

/// The features firing on one token of a typed text, strongest first.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TokenFeatures {
    pub token: String,
    pub features: Vec<(usize, f32)>,
}

/// What knocking a feature out does on the held-out rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct KnockOut {
    pub feature: usize,
    pub loss: f32,
    pub loss_without: f32,
    /// For a task: problems answered right before, and after.
    pub right: usize,
    pub right_without: usize,
    pub rows: usize,
    /// A few problems whose answer flipped, as typed, with whether they became right.
    pub flipped: Vec<(String, bool)>,
}

/// A generation with a feature's direction added, beside the same draw without it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Steered {
    pub feature: usize,
    pub strength: f32,
    pub plain: String,
    pub steered: String,
}

impl<W: Watch> Run<W> {
    fn trainee(&self) -> Result<&SaeTrainee> {
        Ok(self.features.as_ref().ok_or_else(super::no_features)?.model())
    }

    /// Which features fire on each token of `text`, strongest first (its last `block_size` tokens).
    pub fn features_at(&self, text: &str) -> Result<Vec<TokenFeatures>> {
        let trainee = self.trainee()?;
        let ids = self.typed_ids(text)?;
        let ws = Workspace::default();
        let x = trainee.model().activations(&ws, &ids, 1, ids.len(), trainee.sae().config().point)?;
        let codes = trainee.sae().encode(&ws, &x);
        Ok((0..codes.rows())
            .map(|n| {
                let mut features: Vec<(usize, f32)> = codes.row(n).collect();
                features.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                TokenFeatures { token: self.tokenizer.token_text(ids[n] as u32), features }
            })
            .collect())
    }

    /// Feature `feature` knocked out on `batches` held-out batches (the measures' rows).
    pub fn knock_out_feature(&self, feature: usize, batches: usize) -> Result<KnockOut> {
        let trainee = self.trainee()?;
        let (sae, model) = (trainee.sae(), trainee.model());
        check_feature(sae, feature)?;
        let rows = self.feature_rows(batches)?;
        let ws = Workspace::default();
        let (reads, writes) = (sae.config().point, sae.config().writes());
        let (mut loss, mut loss_without, mut right, mut right_without) = (0.0f64, 0.0f64, 0, 0);
        let mut flipped = Vec::new();
        for (idx, targets) in &rows.batches {
            let batch = Batch { idx, targets, b: rows.b, t: rows.t };
            let (l, before) = model.score_edited(&ws, batch, &[])?;
            let codes = sae.encode(&ws, &model.activations(&ws, idx, rows.b, rows.t, reads)?);
            let (l_without, after) =
                model.score_replaced(&ws, batch, writes, &mut |v| remove(sae, &codes, v, feature))?;
            (loss, loss_without) = (loss + l as f64, loss_without + l_without as f64);
            right += before.iter().filter(|&&r| r).count();
            right_without += after.iter().filter(|&&r| r).count();
            for (r, (&was, &is)) in before.iter().zip(&after).enumerate() {
                if was != is && flipped.len() < SHOWN_FLIPS {
                    // The row's ids, and the last target after them: the whole problem.
                    let row = r * rows.t..(r + 1) * rows.t;
                    let mut ids: Vec<u32> = idx[row.clone()].iter().map(|&i| i as u32).collect();
                    ids.extend(targets[row].last().filter(|&&t| t != crate::ops::IGNORE).map(|&t| t as u32));
                    flipped.push((self.tokenizer.decode(&ids), is));
                }
            }
        }
        let n = rows.batches.len() as f64;
        let scores_answers = self.task().is_some();
        Ok(KnockOut {
            feature,
            loss: (loss / n) as f32,
            loss_without: (loss_without / n) as f32,
            right,
            right_without,
            rows: rows.b * rows.batches.len(),
            flipped: if scores_answers { flipped } else { vec![] },
        })
    }

    /// A generation by `config` with `strength` times feature `feature`'s direction added to the
    /// activations at every position, and the same draw without it.
    pub fn steer(&self, feature: usize, strength: f32, config: SampleConfig) -> Result<Steered> {
        let trainee = self.trainee()?;
        let (sae, model) = (trainee.sae(), trainee.model());
        check_feature(sae, feature)?;
        if !strength.is_finite() {
            return Err(Error::Config(dictionaries::steering(strength)));
        }
        let prompt = self.tokenizer.encode(&config.prompt)?;
        let (block, point, v, c) =
            (model.config().block_size, sae.config().writes(), model.config().vocab_size, sae.d_in());
        let direction = sae.direction(feature);
        let generate = |strength: f32| -> Result<String> {
            let mut sampler = Sampler::new(&prompt, config.clone())?;
            let mut out = Vec::new();
            let add = |window: &[usize]| {
                let t = window.len();
                let mut steer = |values: &mut [f32]| {
                    for row in values.chunks_exact_mut(c) {
                        row.iter_mut().zip(direction).for_each(|(x, d)| *x += strength * d);
                    }
                };
                let logits = model.logits_replaced(window, 1, t, point, &mut steer)?;
                Ok(logits[(t - 1) * v..].to_vec())
            };
            while let Some(token) = sampler.next_token_from(block, add)? {
                out.push(token);
            }
            Ok(self.tokenizer.decode(&out))
        };
        Ok(Steered { feature, strength, plain: generate(0.0)?, steered: generate(strength)? })
    }

    /// A typed text's ids, its last `block_size` of them, or why it has none.
    fn typed_ids(&self, text: &str) -> Result<Vec<usize>> {
        let ids = self.tokenizer.encode(text)?;
        if ids.is_empty() {
            return Err(Error::Data(dictionaries::features_text()));
        }
        let block = self.model().config().block_size;
        Ok(ids[ids.len().saturating_sub(block)..].iter().map(|&i| i as usize).collect())
    }
}

/// `values` (rows of activations) without feature `feature`'s part: its activation on each row (in
/// `codes`, from what the autoencoder read) times its direction.
fn remove(sae: &Sae, codes: &Codes, values: &mut [f32], feature: usize) {
    let d = sae.d_in();
    for (n, row) in values.chunks_exact_mut(d).enumerate() {
        if let Some((_, a)) = codes.row(n).find(|&(j, _)| j == feature) {
            sae.view().add_directions(std::iter::once((feature, -a)), row);
        }
    }
}

fn check_feature(sae: &Sae, feature: usize) -> Result<()> {
    if feature >= sae.d_sae() {
        return Err(Error::Data(dictionaries::no_feature(feature, sae.d_sae())));
    }
    Ok(())
}
