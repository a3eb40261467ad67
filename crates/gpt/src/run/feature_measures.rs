//! How well a run's sparse autoencoder does, measured on held-out batches as SAELens measures one:
//! the reconstruction error, the variance explained, L0, dead and dense features, and the share of
//! the model's loss it recovers when its reconstruction replaces the activations.

use super::no_features;
use super::training::Watch;
use super::Run;
use crate::error::Result;
use crate::rng::Rng;
use crate::sae::{Sums, DENSE};
use crate::train::Batches;
use crate::work::{targets, Batch, Split};
use crate::workspace::Workspace;
use serde::Serialize;

/// Seeds the held-out batches the measures read, the same at every measurement.
pub(super) const MEASURE_SEED: u64 = 0x6665_6174_7572_6505;

/// Held-out batches of `b` rows of `t` ids, with their targets ([`crate::ops::IGNORE`] where the
/// model's loss skips a position).
#[derive(Clone, Debug)]
pub struct FeatureRows {
    pub b: usize,
    pub t: usize,
    pub batches: Vec<(Vec<usize>, Vec<usize>)>,
}

/// How well an autoencoder does on held-out batches.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FeatureMeasures {
    /// Tokens measured.
    pub tokens: usize,
    /// ‖x̂ − x‖² per token.
    pub mse: f32,
    /// 1 − mse over the activations' variance (summed over channels): SAELens's.
    pub explained_variance: f32,
    /// Features firing per token, on average.
    pub l0: f32,
    /// The share of features that have not fired for the config's `dead_tokens` training tokens.
    pub dead: f32,
    /// The share that fired on none of the `tokens` held-out tokens measured (more tokens, fewer
    /// silent: it is a count over this many).
    pub silent: f32,
    /// The share firing on more than [`DENSE`] of the tokens.
    pub dense: f32,
    /// The model's loss as it is, with the autoencoder's reconstruction in place of the
    /// activations, and with the activations zeroed.
    pub loss_clean: f32,
    pub loss_with_sae: f32,
    pub loss_zeroed: f32,
    /// How much of the loss that zeroing costs the reconstruction keeps (SAELens's
    /// `ce_loss_score`): 1 is the model's own. Where zeroing already costs about everything (the
    /// last block of a small model), it reads near 1 for any autoencoder: read `loss_added`.
    pub loss_recovered: f32,
    /// The loss the reconstruction adds to the model's own (`loss_with_sae − loss_clean`: the
    /// "delta loss" of the SAE literature), which tells a good autoencoder from a poor one wherever
    /// it reads.
    pub loss_added: f32,
    /// Each feature's share of tokens it fires on.
    pub density: Vec<f32>,
}

impl<W: Watch> Run<W> {
    /// The autoencoder measured on `batches` held-out batches (the same ones every time).
    pub fn feature_measures(&self, batches: usize) -> Result<FeatureMeasures> {
        let trainer = self.features.as_ref().ok_or_else(no_features)?;
        let trainee = trainer.model();
        let (sae, model) = (trainee.sae(), trainee.model());
        let (d, m) = (sae.d_in(), sae.d_sae());
        let ws = Workspace::default();
        let mut sums = Sums::new(d);
        let mut fired = vec![0usize; m];
        let mut losses = [0.0f64; 3];
        // The model is frozen: its loss as it is and zeroed at the point are measured once.
        let baseline = self.feature_baseline.get().filter(|&(n, ..)| n == batches);
        let rows = self.feature_rows(batches)?;
        for (idx, targets) in &rows.batches {
            let batch = Batch { idx, targets, b: rows.b, t: rows.t };
            let (x, y) = trainee.activations(&ws, batch)?.swap_remove(0);
            let codes = sae.encode(&ws, &x);
            let recon = sae.view().output(&x, &codes);
            sums.add(y.as_deref().unwrap_or(&x), &recon, d);
            codes.features.iter().for_each(|&j| fired[j as usize] += 1);
            let point = sae.config().writes();
            losses[1] += model.score_replaced(&ws, batch, point, &mut |v| v.copy_from_slice(&recon))?.0 as f64;
            if baseline.is_none() {
                losses[0] += model.score_edited(&ws, batch, &[])?.0 as f64;
                losses[2] += model.score_replaced(&ws, batch, point, &mut |v| v.fill(0.0))?.0 as f64;
            }
        }
        let tokens = sums.tokens;
        let n = rows.batches.len() as f64;
        let [mut clean, with_sae, mut zeroed] = losses.map(|l| (l / n) as f32);
        match baseline {
            Some((_, c, z)) => (clean, zeroed) = (c, z),
            None => self.feature_baseline.set(Some((batches, clean, zeroed))),
        }
        let share = |count: usize| count as f32 / m as f32;
        let density: Vec<f32> = fired.iter().map(|&f| f as f32 / tokens.max(1) as f32).collect();
        Ok(FeatureMeasures {
            tokens,
            mse: sums.mse(),
            explained_variance: sums.explained_variance(),
            l0: codes_per_token(&fired, tokens),
            dead: share(trainee.dead().iter().filter(|&&dead| dead).count()),
            silent: share(fired.iter().filter(|&&f| f == 0).count()),
            dense: share(density.iter().filter(|&&p| p > DENSE).count()),
            loss_clean: clean,
            loss_with_sae: with_sae,
            loss_zeroed: zeroed,
            loss_recovered: (zeroed - with_sae) / (zeroed - clean),
            loss_added: with_sae - clean,
            density,
        })
    }

    /// The held-out batches the measures read: `batches` of the autoencoder's rows, drawn the
    /// same way every time.
    pub fn feature_rows(&self, batches: usize) -> Result<FeatureRows> {
        let trainer = self.features.as_ref().ok_or_else(no_features)?;
        self.held_out_rows(trainer.train_config().batch_size, batches)
    }

    /// `batches` held-out batches of `b` rows, drawn the same way every time.
    pub(crate) fn held_out_rows(&self, b: usize, batches: usize) -> Result<FeatureRows> {
        let data = self.data.as_ref().ok_or_else(super::training::no_text)?;
        let block = self.model().config().block_size;
        let mut rng = Rng::new(MEASURE_SEED);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let batches = (0..batches.max(1))
            .map(|_| {
                data.batch(Split::Val, b, block, &mut rng, &mut x, &mut y);
                (x.iter().map(|&i| i as usize).collect(), targets(&y))
            })
            .collect();
        Ok(FeatureRows { b, t: data.seq_len(block), batches })
    }
}

fn codes_per_token(fired: &[usize], tokens: usize) -> f32 {
    fired.iter().sum::<usize>() as f32 / tokens.max(1) as f32
}
