//! A sparse autoencoder, or a transcoder per MLP, as the trainer trains it: on a frozen copy of
//! a run's model, whose activations at each dictionary's hook points each batch of the run's own
//! text or problems gives, from one pass (`loss.rs` computes each loss and its gradient). Each
//! step's shards also count how often each feature fired (the tallies), from which every copy
//! alike knows which are dead.

use super::config::{Architecture, SaeConfig, THRESHOLD_RATE};
use super::dictionaries::{Dictionaries, Read};
use super::loss::{backward, squared_error};
use super::source::Source;
use super::weights::{Sae, SaeRef};
use crate::config::{GPTConfig, TrainConfig};
use crate::error::{Error, Result};
use crate::model::HookPoint;
use crate::params::Params;
use crate::rng::Rng;
use crate::train::Trainable;
use crate::words::{dictionaries, runs::bug};
use crate::work::Batch;
use crate::workspace::Workspace;
use crate::GPT;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// An autoencoder (or transcoders) in training on a frozen model (or another [`Source`]).
pub struct SaeTrainee<D: Dictionaries = Sae, S: Source = GPT> {
    sae: D,
    model: Arc<S>,
    /// The step the model was at when it was frozen.
    model_step: usize,
    /// Training tokens since each feature last fired (each dictionary's after the one before's), up
    /// to the config's `dead_tokens` (past it a feature is dead however long it stays silent), so
    /// every count is a whole `f32`.
    since_fired: Vec<f32>,
    /// Each dictionary's output's variance summed over channels: the loss of guessing its mean.
    variances: Vec<f32>,
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
    /// Each dictionary's output variance, for a set of transcoders (a lone autoencoder's is
    /// `variance`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variances: Vec<f32>,
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

impl<S: Source> SaeTrainee<Sae, S> {
    /// `sae` to train on `model`'s activations, whose variance (summed over channels) `variance`
    /// is.
    pub fn new(sae: Sae, model: Arc<S>, model_step: usize, variance: f32) -> Result<SaeTrainee<Sae, S>> {
        SaeTrainee::of(sae, model, model_step, vec![variance])
    }

    pub fn sae(&self) -> &Sae {
        &self.sae
    }

    pub fn into_sae(self) -> Sae {
        self.sae
    }

    /// The activations' variance it measures its loss against.
    pub fn variance(&self) -> f32 {
        self.variances[0]
    }
}

impl SaeTrainee {
    /// A helper's copy: `config`'s autoencoder on a model `model` describes, its weights and the
    /// model's to come with the run's state.
    pub fn blank(model: GPTConfig, config: SaeConfig) -> Result<SaeTrainee> {
        let model = GPT::new(model, 0)?;
        let c = model.config();
        let sae = Sae::new(config, c.n_layer, c.n_embd, 0)?;
        SaeTrainee::new(sae, Arc::new(model), 0, 0.0)
    }
}

impl<D: Dictionaries, S: Source> SaeTrainee<D, S> {
    /// `dictionaries` to train on `model`'s activations, whose variances (summed over channels,
    /// one per dictionary's output) `variances` are: each one's error is weighed over its own.
    pub fn of(dictionaries: D, model: Arc<S>, model_step: usize, variances: Vec<f32>) -> Result<SaeTrainee<D, S>> {
        let each = dictionaries.each();
        for sae in &each {
            if sae.d_in() != model.width() {
                return Err(Error::Config(dictionaries::channels(sae.d_in(), model.width())));
            }
            sae.config().validate(model.layers(), model.width())?;
        }
        if variances.len() != each.len() {
            return Err(Error::Config(bug(format!("{} variances for {} dictionaries", variances.len(), each.len()))));
        }
        let since_fired = vec![0.0; each.iter().map(SaeRef::d_sae).sum()];
        Ok(SaeTrainee { sae: dictionaries, model, model_step, since_fired, variances })
    }

    /// What it trains.
    pub fn dictionaries(&self) -> &D {
        &self.sae
    }

    pub fn model(&self) -> &S {
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
            let window = self.window() as u64;
            self.since_fired = since_fired.iter().map(|&s| s.min(window) as f32).collect();
        }
    }

    /// Each dictionary's output's variance.
    pub fn variances(&self) -> &[f32] {
        &self.variances
    }

    /// How much each dictionary's squared error weighs in the loss: a lone autoencoder's is
    /// SAELens's loss; a set's each count over their own variance (normalised), so that a
    /// quiet MLP weighs as much as a loud one.
    fn weights(&self) -> Vec<f32> {
        match self.variances[..] {
            [_] => vec![1.0],
            ref all => all.iter().map(|v| 1.0 / v.max(f32::MIN_POSITIVE)).collect(),
        }
    }

    /// Which features have not fired for the config's `dead_tokens` training tokens, each
    /// dictionary's after the one before's.
    pub fn dead(&self) -> Vec<bool> {
        let window = self.window();
        self.since_fired.iter().map(|&s| s >= window).collect()
    }

    /// The training tokens a feature may stay silent before it counts as dead (a set's
    /// dictionaries share their settings).
    fn window(&self) -> f32 {
        self.sae.each()[0].config().dead_tokens as f32
    }

    /// The activations of `batch` each dictionary reads, rows of `d_in`, and for a transcoder
    /// those it should write (an autoencoder's are what it reads), from one pass.
    pub fn activations(&self, ws: &Workspace, batch: Batch) -> Result<Vec<Read>> {
        let configs: Vec<SaeConfig> = self.sae.each().iter().map(|sae| *sae.config()).collect();
        let points: Vec<HookPoint> = configs.iter().flat_map(|c| [Some(c.point), c.output]).flatten().collect();
        let mut read = self.model.read(ws, batch, &points)?.into_iter();
        Ok(configs.iter().map(|c| (read.next().expect("a point read"), c.output.and_then(|_| read.next()))).collect())
    }
}

impl<D: Dictionaries, S: Source> Trainable for SaeTrainee<D, S> {
    fn params(&self) -> &Params {
        self.sae.params()
    }

    fn params_mut(&mut self) -> &mut Params {
        self.sae.params_mut()
    }

    fn block_size(&self) -> usize {
        self.model.block_size()
    }

    fn dropout(&self) -> f32 {
        0.0
    }

    fn set_dropout(&mut self, p: f32) -> Result<()> {
        match p {
            0.0 => Ok(()),
            _ => Err(Error::Config(dictionaries::no_dropout())),
        }
    }

    /// No finite loss counts as diverged, only a loss or gradient that is not finite: a fresh
    /// dictionary's first losses may be any multiple of a guess of each output's mean (on a barely
    /// trained model's quiet MLPs, a hundred times), and fall at once.
    fn uniform_loss(&self) -> f32 {
        f32::MAX
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
            return Err(Error::Data(bug(format!("expected {} gradients, got {}", self.grad_len(), grads.len()))));
        }
        let reads = self.activations(ws, batch)?;
        let (dead, each) = (self.dead(), self.sae.each());
        let (mut grads, tallies) = grads.split_at_mut(self.params().count());
        let (mut fired, rest) = tallies.split_at_mut(self.since_fired.len());
        let (least, tokens) = rest.split_at_mut(2 * each.len());
        fired.fill(0.0);
        let (mut dead, mut loss) = (&dead[..], 0.0);
        for (((sae, (x, y)), w), least) in each.iter().zip(&reads).zip(self.weights()).zip(least.chunks_exact_mut(2)) {
            let m = sae.d_sae();
            let (own, rest) = std::mem::take(&mut grads).split_at_mut(sae.param_count());
            let (own_fired, rest_fired) = std::mem::take(&mut fired).split_at_mut(m);
            let (own_dead, rest_dead) = dead.split_at(m);
            let target = y.as_deref().unwrap_or(x);
            let losses = backward(*sae, ws, x, target, Some(own_dead), weight * w, own, own_fired);
            // Each shard's least firing activation, and that it had one: a BatchTopK threshold
            // follows their mean (over one shard, SAELens's batch minimum).
            least.copy_from_slice(&losses.least_fired.map_or([0.0, 0.0], |a| [a, 1.0]));
            loss += w * losses.total();
            (grads, fired, dead) = (rest, rest_fired, rest_dead);
        }
        tokens[0] = (batch.b * batch.t) as f32;
        Ok(loss)
    }

    /// An evaluation batch's reconstruction error, ‖x̂ − x‖² per token (a transcoder's against the
    /// MLP's output), weighed as the loss weighs it.
    fn score(&self, ws: &Workspace, batch: Batch) -> Result<(f32, usize)> {
        let reads = self.activations(ws, batch)?;
        let mut error = 0.0;
        for ((sae, (x, y)), w) in self.sae.each().iter().zip(&reads).zip(self.weights()) {
            let recon = sae.output(x, &sae.encode(ws, x));
            error += w * squared_error(&recon, y.as_deref().unwrap_or(x)) / (x.len() / sae.d_in()).max(1) as f32;
        }
        Ok((error, 0))
    }

    /// A count per feature, each dictionary's least firing activations' sum and count, then the
    /// step's tokens.
    fn tally_len(&self) -> usize {
        self.since_fired.len() + 2 * self.sae.each().len() + 1
    }

    fn after_step(&mut self, tallies: &[f32]) {
        self.sae.normalize_decoders();
        let Some((&tokens, rest)) = tallies.split_last() else { return };
        let (fired, least) = rest.split_at(self.since_fired.len());
        let architectures: Vec<Architecture> = self.sae.each().iter().map(|s| s.config().architecture).collect();
        for (k, (architecture, least)) in architectures.into_iter().zip(least.chunks_exact(2)).enumerate() {
            let Some(threshold) = self.sae.threshold_mut(k) else { continue };
            match architecture {
                // SAELens keeps a JumpReLU threshold at 0 or more.
                Architecture::JumpRelu { .. } => threshold.iter_mut().for_each(|t| *t = t.max(0.0)),
                _ if least[1] > 0.0 => {
                    let least = least[0] / least[1];
                    threshold.iter_mut().for_each(|t| *t = (1.0 - THRESHOLD_RATE) * *t + THRESHOLD_RATE * least);
                }
                _ => {}
            }
        }
        let window = self.window();
        for (since, &count) in self.since_fired.iter_mut().zip(fired) {
            *since = if count > 0.0 { 0.0 } else { (*since + tokens).min(window) };
        }
    }

    /// The frozen model's weights, the counts of silence and the loss's variances: a helper has
    /// none of them.
    fn held_parts(&self) -> Vec<&[f32]> {
        let model = self.model.held_parts();
        model.into_iter().chain([&self.since_fired[..], &self.variances[..]]).collect()
    }

    fn held_parts_mut(&mut self) -> Result<Vec<&mut [f32]>> {
        let model = Arc::get_mut(&mut self.model)
            .ok_or_else(|| Error::Config(bug("the frozen model is shared: a helper's copy must hold its own")))?;
        let parts = model.held_parts_mut().into_iter();
        Ok(parts.chain([&mut self.since_fired[..], &mut self.variances[..]]).collect())
    }
}
