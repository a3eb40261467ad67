//! The GPT, as nanoGPT's `model.py`: token and position embeddings, a stack of pre-norm
//! [`Block`]s, a final norm and the output projection; its forward pass, and the losses,
//! logits and gradients computed from it.

use super::block::Block;
use super::edits::{apply, Edit, Site};
use super::extras::{Extras, FINAL_STREAM};
use super::layers::{dropout, Linear, Norm, ParamId};
use super::rewire::{read, Reader};
use crate::autograd::{Graph, Var};
use crate::config::GPTConfig;
use crate::error::{Error, Result};
use crate::ops::IGNORE;
use crate::params::{Init, Params};
use crate::rng::Rng;
use crate::words::{runs, runs::bug};
use crate::work::Batch;
use crate::workspace::Workspace;
use ndarray::ArrayD;

/// The cross-entropy of a uniform guess over `vocab_size` tokens, ln(V): where an untrained
/// model starts.
pub fn uniform_loss(vocab_size: usize) -> f32 {
    (vocab_size.max(1) as f32).ln()
}

/// A decoder-only transformer with its parameters.
pub struct GPT {
    config: GPTConfig,
    params: Params,
    pub(super) wte: ParamId,
    /// The learned position table; none with rotary embeddings, which turn queries and keys instead.
    pub(super) wpe: Option<ParamId>,
    pub(super) blocks: Vec<Block>,
    pub(super) ln_f: Norm,
    /// The output projection; its weight is the token embedding itself when weights are tied.
    pub(super) lm_head: Linear,
    /// Buffers shared by successive forward and backward passes.
    pub(crate) workspace: Workspace,
    /// Bumped by every mutable access to the parameters, so a cache built from older weights
    /// (a sampler's keys and values) can tell it is stale.
    version: u64,
}

impl GPT {
    /// A copy of the model, for work that reads its weights (an autoencoder's training) or moves
    /// them (the learning coefficient's chains) while the run may go on training.
    pub fn frozen_copy(&self) -> Result<GPT> {
        let mut copy = GPT::new(self.config.clone(), 0)?;
        copy.params.values = self.params.values.clone();
        Ok(copy)
    }

    /// A model initialised as nanoGPT does: N(0, 0.02) weights, N(0, 0.02/√(2·n_layer)) for the
    /// residual projections, zero biases, unit norm weights.
    pub fn new(config: GPTConfig, seed: u64) -> Result<GPT> {
        config.validate()?;
        let mut rng = Rng::new(seed);
        let mut p = Params::default();
        let c = config.n_embd;
        let std = Init::Normal(0.02);
        let wte = ParamId(p.add("transformer.wte.weight".into(), &[config.vocab_size, c], std, &mut rng));
        let wpe = (!config.rope)
            .then(|| ParamId(p.add("transformer.wpe.weight".into(), &[config.block_size, c], std, &mut rng)));
        let blocks = (0..config.n_layer).map(|i| Block::new(&mut p, i, &config, &mut rng)).collect();
        let ln_f = Norm::new(&mut p, "transformer.ln_f", config.norm, c, config.bias, &mut rng);
        let lm_head = if config.tie_weights {
            Linear { weight: wte, bias: None }
        } else {
            Linear::new(&mut p, "lm_head", c, config.vocab_size, std, false, &mut rng)
        };
        Ok(GPT { config, params: p, wte, wpe, blocks, ln_f, lm_head, workspace: Workspace::trimming(), version: 0 })
    }

    pub fn config(&self) -> &GPTConfig {
        &self.config
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Sets the dropout probability: the one setting of the architecture that changes no
    /// parameter, so a run can change it between steps.
    pub fn set_dropout(&mut self, p: f32) -> Result<()> {
        let config = GPTConfig { dropout: p, ..self.config.clone() };
        config.validate()?;
        self.config = config;
        Ok(())
    }

    pub fn params_mut(&mut self) -> &mut Params {
        self.version += 1;
        &mut self.params
    }

    /// Changes whenever the parameters may have changed.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Checks that `idx` holds `b` rows of `t` ids the model can read.
    pub(crate) fn check_input(&self, idx: &[usize], b: usize, t: usize) -> Result<()> {
        if t == 0 || t > self.config.block_size {
            return Err(Error::Data(runs::sequence_too_long(t, self.config.block_size)));
        }
        if Some(idx.len()) != b.checked_mul(t) {
            return Err(Error::Data(bug(format!("expected {b}×{t} token ids, got {}", idx.len()))));
        }
        if let Some(&bad) = idx.iter().find(|&&i| i >= self.config.vocab_size) {
            return Err(Error::Data(runs::token_outside(bad, self.config.vocab_size)));
        }
        Ok(())
    }

    /// Checks that `targets` holds `b` rows of `t` ids below the vocabulary, or [`IGNORE`].
    pub(super) fn check_targets(&self, targets: &[usize], b: usize, t: usize) -> Result<()> {
        if Some(targets.len()) != b.checked_mul(t) {
            return Err(Error::Data(bug(format!("expected {b}×{t} targets, got {}", targets.len()))));
        }
        match targets.iter().find(|&&i| i >= self.config.vocab_size && i != IGNORE) {
            Some(bad) => Err(Error::Data(runs::target_outside(*bad, self.config.vocab_size))),
            None => Ok(()),
        }
    }

    /// Records the forward pass of `idx` (B×T ids) into `g` and returns the logits (B, T, V).
    pub(crate) fn forward(&self, g: &mut Graph, idx: &[usize], b: usize, t: usize, extras: &mut Extras) -> Var {
        let x = self.embed(g, idx, b, t, extras);
        self.forward_from(g, x, 0, extras)
    }

    /// The stream entering the first block: token (and position) embeddings, with dropout.
    pub(super) fn embed(&self, g: &mut Graph, idx: &[usize], b: usize, t: usize, extras: &mut Extras) -> Var {
        let mut x = g.embedding(self.wte.var(g), idx, &[b, t]); // (B, T, C)
        extras.hook(|| "hook_embed".into(), x);
        if let Some(wpe) = self.wpe {
            let positions: Vec<usize> = (0..t).collect();
            let pos = g.embedding(wpe.var(g), &positions, &[t]); // (T, C)
            extras.hook(|| "hook_pos_embed".into(), pos);
            x = g.add(x, pos);
        }
        if let Some(given) =
            extras.rewire.as_deref_mut().and_then(|r| r.embedding(g.value(x).as_slice().expect("standard layout")))
        {
            x = super::edits::given(g, &[b, t, self.config.n_embd], &given);
        }
        dropout(g, x, extras.dropout.as_mut())
    }

    /// The rest of a forward pass from `x` (B, T, C), the stream entering block `from`: the
    /// blocks from there, the final norm and the output projection; the logits (B, T, V).
    pub(super) fn forward_from(&self, g: &mut Graph, mut x: Var, from: usize, extras: &mut Extras) -> Var {
        for block in &self.blocks[from..] {
            x = block.forward(g, x, extras); // (B, T, C)
        }
        let last = self.blocks.len();
        x = apply(g, x, extras.edits, 0, |s| matches!(s, Site::Residual { layer, .. } if *layer == last));
        extras.hook(|| FINAL_STREAM.into(), x);
        let x = read(g, x, Reader::Logits, extras.rewire.as_deref_mut());
        let x = self.ln_f.forward(g, x);
        extras.hook(|| "ln_final.hook_out".into(), x);
        self.lm_head.forward(g, x) // (B, T, V)
    }

    /// The logits (B, T, V) for `idx` (B×T ids), in evaluation mode (no dropout).
    pub fn logits(&self, idx: &[usize], b: usize, t: usize) -> Result<ArrayD<f32>> {
        self.logits_edited(idx, b, t, &[])
    }

    /// The same with `edits` made to the pass.
    pub fn logits_edited(&self, idx: &[usize], b: usize, t: usize, edits: &[Edit]) -> Result<ArrayD<f32>> {
        self.check_input(idx, b, t)?;
        super::edits::check(edits, &self.config, t)?;
        let mut g = Graph::new(&self.params.values, &self.workspace);
        let logits = self.forward(&mut g, idx, b, t, &mut Extras::eval(edits, None));
        Ok(g.value(logits).clone())
    }

    /// The mean cross-entropy of `targets` given `idx`, in evaluation mode.
    pub fn loss(&self, idx: &[usize], targets: &[usize], b: usize, t: usize) -> Result<f32> {
        Ok(self.score_in(&self.workspace, idx, targets, b, t)?.0)
    }

    /// The mean cross-entropy of `targets` (those not [`IGNORE`]) given `idx`, in evaluation
    /// mode, with buffers from `ws` so that threads can share the model; and how many of the `b`
    /// rows the model gets exactly right: every counted target its most likely token (the first
    /// on a tie). Greedy decoding writes a row's answer right exactly then, since it sees the
    /// same context up to its first miss.
    pub fn score_in(
        &self,
        ws: &Workspace,
        idx: &[usize],
        targets: &[usize],
        b: usize,
        t: usize,
    ) -> Result<(f32, usize)> {
        let (loss, right) = self.score_edited(ws, Batch { idx, targets, b, t }, &[])?;
        Ok((loss, right.iter().filter(|&&r| r).count()))
    }

    /// As [`GPT::score_in`] with `edits` made to the pass, and whether each row is exactly right.
    pub fn score_edited(&self, ws: &Workspace, batch: Batch, edits: &[Edit]) -> Result<(f32, Vec<bool>)> {
        let Batch { idx, targets, b, t } = batch;
        self.check_input(idx, b, t)?;
        self.check_targets(targets, b, t)?;
        super::edits::check(edits, &self.config, t)?;
        let mut g = Graph::new(&self.params.values, ws);
        let logits = self.forward(&mut g, idx, b, t, &mut Extras::eval(edits, None));
        Ok(self.score_logits(&mut g, logits, batch))
    }

    /// The mean cross-entropy of `batch`'s targets given `logits` (B, T, V), and whether each
    /// row is exactly right.
    pub(super) fn score_logits(&self, g: &mut Graph, logits: Var, batch: Batch) -> (f32, Vec<bool>) {
        let Batch { targets, b, t, .. } = batch;
        let v = self.config.vocab_size;
        let values = g.value(logits).as_slice().expect("standard layout");
        let right = |(row, &target): (&[f32], &usize)| target == IGNORE || crate::ops::argmax(row) == target;
        let rows_right = (0..b)
            .map(|r| values[r * t * v..(r + 1) * t * v].chunks_exact(v).zip(&targets[r * t..(r + 1) * t]).all(right))
            .collect();
        let loss = g.cross_entropy(logits, targets);
        (scalar(g.value(loss)), rows_right)
    }

    /// The output projection's weight (V, C), row by token: the token embedding when tied.
    pub fn unembedding(&self) -> &[f32] {
        self.params.values[self.lm_head.weight.0].as_slice().expect("parameters are kept in standard layout")
    }

    /// What a direction in the stream entering the final norm adds to each token's logit: its
    /// product with the unembedding, the norm's weight folded in (TransformerLens's `fold_ln`)
    /// and the norm's scale, which depends on the whole stream, left out.
    pub fn unembed(&self, direction: &[f32]) -> Vec<f32> {
        let gain = self.params.values[self.ln_f.weight.0].as_slice().expect("standard layout");
        let folded: Vec<f32> = direction.iter().zip(gain).map(|(d, g)| d * g).collect();
        let c = self.config.n_embd;
        self.unembedding().chunks_exact(c).map(|row| row.iter().zip(&folded).map(|(u, d)| u * d).sum()).collect()
    }

    /// The attention probabilities of every layer and head for one sequence, (L, nh, T, T).
    pub fn attention(&self, idx: &[usize]) -> Result<Vec<f32>> {
        Ok(self.trace(idx)?.attention)
    }
}

pub(super) fn scalar(x: &ArrayD<f32>) -> f32 {
    x.first().copied().unwrap_or(f32::NAN)
}
