//! A sparse autoencoder as the trainer trains it: on a frozen copy of a run's model, whose
//! activations at the autoencoder's hook point each batch of the run's own text or problems
//! gives (`loss.rs` computes the loss and its gradient). Each step's shards also count how often
//! each feature fired (the tallies), from which every copy of the autoencoder alike knows which
//! are dead.

use super::config::SaeConfig;
use super::loss::{backward, squared_error};
use super::weights::Sae;
use crate::config::{GPTConfig, TrainConfig};
use crate::error::{Error, Result};
use crate::model::HookPoint;
use crate::params::Params;
use crate::rng::Rng;
use crate::train::Trainable;
use crate::work::Batch;
use crate::workspace::Workspace;
use crate::GPT;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// An autoencoder in training on a frozen model.
pub struct SaeTrainee {
    sae: Sae,
    model: Arc<GPT>,
    /// The step the model was at when it was frozen.
    model_step: usize,
    /// Training tokens since each feature last fired, up to the config's `dead_tokens` (past it a
    /// feature is dead however long it stays silent), so every count is a whole `f32`.
    since_fired: Vec<f32>,
    /// The activations' variance summed over channels: the loss of guessing their mean.
    variance: f32,
}

/// What a checkpoint keeps of an autoencoder beside its weights (`sae.W_enc`, …): its settings,
/// the model's step it reads, its own steps, recipe, random state and losses, and its loss scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedSae {
    pub config: SaeConfig,
    pub model_step: usize,
    pub step: usize,
    pub train: TrainConfig,
    pub variance: f32,
    /// Training tokens since each feature last fired (how dead features are told).
    #[serde(default)]
    pub since_fired: Vec<u64>,
    /// Its optimiser's steps (Adam's bias correction) and the state its batches are drawn from;
    /// a file written before they were kept starts them afresh.
    #[serde(default)]
    pub optimizer_steps: u64,
    #[serde(default)]
    pub rng: Option<crate::rng::Rng>,
    /// Its training losses, step by step, so a reopened autoencoder shows its curve.
    #[serde(default)]
    pub history: crate::train::History,
}

impl SaeTrainee {
    /// `sae` to train on `model`'s activations, whose variance (summed over channels) `variance`
    /// is: a step whose loss is far past it has diverged.
    pub fn new(sae: Sae, model: Arc<GPT>, model_step: usize, variance: f32) -> Result<SaeTrainee> {
        let c = model.config();
        if sae.d_in() != c.n_embd {
            return Err(Error::Config(format!(
                "the autoencoder reads {} channels, the model has {}",
                sae.d_in(),
                c.n_embd
            )));
        }
        sae.config().validate(c.n_layer, c.n_embd)?;
        let since_fired = vec![0.0; sae.d_sae()];
        Ok(SaeTrainee { sae, model, model_step, since_fired, variance })
    }

    /// A helper's copy: `config`'s autoencoder on a model `model` describes, its weights and the
    /// model's to come with the run's state.
    pub fn blank(model: GPTConfig, config: SaeConfig) -> Result<SaeTrainee> {
        let model = GPT::new(model, 0)?;
        let c = model.config();
        let sae = Sae::new(config, c.n_layer, c.n_embd, 0)?;
        SaeTrainee::new(sae, Arc::new(model), 0, 0.0)
    }

    pub fn sae(&self) -> &Sae {
        &self.sae
    }

    pub fn into_sae(self) -> Sae {
        self.sae
    }

    pub fn model(&self) -> &GPT {
        &self.model
    }

    /// The step the model it reads was at.
    pub fn model_step(&self) -> usize {
        self.model_step
    }

    /// Training tokens since each feature last fired, up to the config's `dead_tokens`.
    pub fn since_fired(&self) -> Vec<u64> {
        self.since_fired.iter().map(|&s| s as u64).collect()
    }

    /// Takes back the counts a checkpoint kept, when there is one per feature.
    pub fn set_since_fired(&mut self, since_fired: &[u64]) {
        if since_fired.len() == self.since_fired.len() {
            let window = self.sae.config().dead_tokens as u64;
            self.since_fired = since_fired.iter().map(|&s| s.min(window) as f32).collect();
        }
    }

    /// The activations' variance it measures its loss against.
    pub fn variance(&self) -> f32 {
        self.variance
    }

    /// Which features have not fired for the config's `dead_tokens` training tokens.
    pub fn dead(&self) -> Vec<bool> {
        let window = self.sae.config().dead_tokens as f32;
        self.since_fired.iter().map(|&s| s >= window).collect()
    }

    /// The activations of `batch` the autoencoder reads, rows of `d_in`, and for a transcoder
    /// those it should write (an autoencoder's are what it reads).
    pub fn activations(&self, ws: &Workspace, batch: Batch) -> Result<(Vec<f32>, Option<Vec<f32>>)> {
        let config = self.sae.config();
        let points: Vec<HookPoint> = [Some(config.point), config.output].into_iter().flatten().collect();
        let mut read = self.model.activations_at(ws, batch.idx, batch.b, batch.t, &points)?.into_iter();
        Ok((read.next().expect("a point read"), read.next()))
    }
}

impl Trainable for SaeTrainee {
    fn params(&self) -> &Params {
        self.sae.params()
    }

    fn params_mut(&mut self) -> &mut Params {
        self.sae.params_mut()
    }

    fn block_size(&self) -> usize {
        self.model.config().block_size
    }

    fn dropout(&self) -> f32 {
        0.0
    }

    fn set_dropout(&mut self, p: f32) -> Result<()> {
        match p {
            0.0 => Ok(()),
            _ => Err(Error::Config("an autoencoder trains without dropout".into())),
        }
    }

    fn uniform_loss(&self) -> f32 {
        self.variance
    }

    fn loss_and_grad(
        &self,
        ws: &Workspace,
        batch: Batch,
        _: Option<&mut Rng>,
        weight: f32,
        grads: &mut [f32],
    ) -> Result<f32> {
        if grads.len() != self.grad_len() {
            return Err(Error::Data(format!("expected {} gradients, got {}", self.grad_len(), grads.len())));
        }
        let (x, y) = self.activations(ws, batch)?;
        let dead = self.dead();
        Ok(backward(&self.sae, ws, &x, y.as_deref().unwrap_or(&x), Some(&dead), weight, grads).total())
    }

    /// An evaluation batch's reconstruction error, ‖x̂ − x‖² per token (a transcoder's against the
    /// MLP's output).
    fn score(&self, ws: &Workspace, batch: Batch) -> Result<(f32, usize)> {
        let (x, y) = self.activations(ws, batch)?;
        let recon = self.sae.decode(&self.sae.encode(ws, &x));
        Ok((squared_error(&recon, y.as_deref().unwrap_or(&x)) / (x.len() / self.sae.d_in()).max(1) as f32, 0))
    }

    /// A count per feature, then the step's tokens.
    fn tally_len(&self) -> usize {
        self.sae.d_sae() + 1
    }

    fn after_step(&mut self, tallies: &[f32]) {
        self.sae.normalize_decoder();
        let Some((&tokens, fired)) = tallies.split_last() else { return };
        let window = self.sae.config().dead_tokens as f32;
        for (since, &count) in self.since_fired.iter_mut().zip(fired) {
            *since = if count > 0.0 { 0.0 } else { (*since + tokens).min(window) };
        }
    }

    /// The frozen model's weights and the counts of silence: a helper has neither.
    fn held_parts(&self) -> Vec<&[f32]> {
        let model = self.model.params().flat_parts().map(|(_, part)| part);
        model.chain([&self.since_fired[..]]).collect()
    }

    fn held_parts_mut(&mut self) -> Result<Vec<&mut [f32]>> {
        let model = Arc::get_mut(&mut self.model)
            .ok_or_else(|| Error::Config("the frozen model is shared: a helper's copy must hold its own".into()))?;
        let parts = model.params_mut().values.iter_mut();
        let parts = parts.map(|v| v.as_slice_mut().expect("parameters are kept in standard layout"));
        Ok(parts.chain([&mut self.since_fired[..]]).collect())
    }
}
