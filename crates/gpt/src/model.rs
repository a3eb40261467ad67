//! The GPT: token and position embeddings, pre-norm transformer blocks, a final norm and the
//! output projection, as nanoGPT's `model.py`.

use crate::autograd::{Graph, Var};
use crate::config::GPTConfig;
use crate::error::{Error, Result};
use crate::params::{Init, Params};
use crate::rng::Rng;
use crate::workspace::Workspace;
use ndarray::ArrayD;

/// A linear layer's parameters: weight (out, in) as PyTorch stores it, and an optional bias.
pub(crate) struct Linear {
    pub(crate) w: usize,
    pub(crate) b: Option<usize>,
}

pub(crate) struct Norm {
    pub(crate) w: usize,
    pub(crate) b: Option<usize>,
}

pub(crate) struct Block {
    pub(crate) ln_1: Norm,
    pub(crate) c_attn: Linear,
    pub(crate) attn_proj: Linear,
    pub(crate) ln_2: Norm,
    pub(crate) c_fc: Linear,
    pub(crate) mlp_proj: Linear,
}

/// A decoder-only transformer with its parameters.
pub struct GPT {
    config: GPTConfig,
    params: Params,
    pub(crate) wte: usize,
    pub(crate) wpe: usize,
    pub(crate) blocks: Vec<Block>,
    pub(crate) ln_f: Norm,
    /// The output projection; the token embedding itself when weights are tied.
    pub(crate) lm_head: usize,
    /// Buffers shared by successive forward and backward passes.
    workspace: Workspace,
    /// Bumped by every mutable access to the parameters, so a cache built from older weights
    /// (a sampler's keys and values) can tell it is stale.
    version: u64,
}

impl GPT {
    /// A model initialised as nanoGPT does: N(0, 0.02) weights, N(0, 0.02/√(2·n_layer)) for the
    /// residual projections, zero biases, unit norm weights.
    pub fn new(config: GPTConfig, seed: u64) -> Result<GPT> {
        config.validate()?;
        let mut rng = Rng::new(seed);
        let mut p = Params::default();
        let (c, bias) = (config.n_embd, config.bias);
        let std = Init::Normal(0.02);
        // Residual projections add up over 2·n_layer paths; scaling them keeps the stream's variance.
        let proj_std = Init::Normal(0.02 / (2.0 * config.n_layer as f32).sqrt());
        let linear = |p: &mut Params, name: &str, i: usize, o: usize, init: Init, rng: &mut Rng| Linear {
            w: p.add(format!("{name}.weight"), &[o, i], init, rng),
            b: bias.then(|| p.add(format!("{name}.bias"), &[o], Init::Zeros, rng)),
        };
        let norm_bias = bias && config.norm == crate::ops::NormKind::LayerNorm;
        let norm = |p: &mut Params, name: &str, rng: &mut Rng| Norm {
            w: p.add(format!("{name}.weight"), &[c], Init::Ones, rng),
            b: norm_bias.then(|| p.add(format!("{name}.bias"), &[c], Init::Zeros, rng)),
        };
        let wte = p.add("transformer.wte.weight".into(), &[config.vocab_size, c], std, &mut rng);
        let wpe = p.add("transformer.wpe.weight".into(), &[config.block_size, c], std, &mut rng);
        let blocks = (0..config.n_layer)
            .map(|i| {
                let h = format!("transformer.h.{i}");
                Block {
                    ln_1: norm(&mut p, &format!("{h}.ln_1"), &mut rng),
                    c_attn: linear(&mut p, &format!("{h}.attn.c_attn"), c, 3 * c, std, &mut rng),
                    attn_proj: linear(&mut p, &format!("{h}.attn.c_proj"), c, c, proj_std, &mut rng),
                    ln_2: norm(&mut p, &format!("{h}.ln_2"), &mut rng),
                    c_fc: linear(&mut p, &format!("{h}.mlp.c_fc"), c, 4 * c, std, &mut rng),
                    mlp_proj: linear(&mut p, &format!("{h}.mlp.c_proj"), 4 * c, c, proj_std, &mut rng),
                }
            })
            .collect();
        let ln_f = norm(&mut p, "transformer.ln_f", &mut rng);
        let lm_head = if config.tie_weights {
            wte
        } else {
            p.add("lm_head.weight".into(), &[config.vocab_size, c], std, &mut rng)
        };
        Ok(GPT { config, params: p, wte, wpe, blocks, ln_f, lm_head, workspace: Workspace::default(), version: 0 })
    }

    pub fn config(&self) -> &GPTConfig {
        &self.config
    }

    pub fn params(&self) -> &Params {
        &self.params
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
    fn check_input(&self, idx: &[usize], b: usize, t: usize) -> Result<()> {
        if t == 0 || t > self.config.block_size {
            return Err(Error::Data(format!(
                "a sequence of {t} tokens does not fit: the model reads 1 to {} (its block size)",
                self.config.block_size
            )));
        }
        if idx.len() != b * t {
            return Err(Error::Data(format!("expected {b}×{t} token ids, got {}", idx.len())));
        }
        if let Some(&bad) = idx.iter().find(|&&i| i >= self.config.vocab_size) {
            return Err(Error::Data(format!("token id {bad} is outside the vocabulary of {}", self.config.vocab_size)));
        }
        Ok(())
    }

    /// Records the forward pass of `idx` (B×T ids) into `g` and returns the logits (B, T, V).
    /// `dropout` gives the randomness for training-mode dropout; `capture` collects every
    /// layer's attention probabilities, (L, B, nh, T, T).
    fn forward(
        &self,
        g: &mut Graph,
        idx: &[usize],
        b: usize,
        t: usize,
        mut dropout: Option<&mut Rng>,
        mut capture: Option<&mut Vec<f32>>,
    ) -> Var {
        let cfg = &self.config;
        let p = cfg.dropout;
        let positions: Vec<usize> = (0..t).collect();
        let tok = g.embedding(g.param(self.wte), idx, &[b, t]); // (B, T, C)
        let pos = g.embedding(g.param(self.wpe), &positions, &[t]); // (T, C)
        let mut x = g.add(tok, pos);
        x = self.drop(g, x, dropout.as_deref_mut());
        for blk in &self.blocks {
            let h = self.norm(g, x, &blk.ln_1);
            let qkv = self.linear(g, h, &blk.c_attn); // (B, T, 3C)
            let attn_drop = dropout.as_deref_mut().filter(|_| p > 0.0).map(|r| (p, r));
            let y = g.causal_attention(qkv, cfg.n_head, attn_drop, capture.as_deref_mut()); // (B, T, C)
            let y = self.linear(g, y, &blk.attn_proj);
            let y = self.drop(g, y, dropout.as_deref_mut());
            x = g.add(x, y);
            let h = self.norm(g, x, &blk.ln_2);
            let h = self.linear(g, h, &blk.c_fc); // (B, T, 4C)
            let h = g.activation(cfg.activation, h);
            let h = self.linear(g, h, &blk.mlp_proj); // (B, T, C)
            let h = self.drop(g, h, dropout.as_deref_mut());
            x = g.add(x, h);
        }
        let x = self.norm(g, x, &self.ln_f);
        g.matmul(x, g.param(self.lm_head), false, true) // (B, T, V)
    }

    fn linear(&self, g: &mut Graph, x: Var, l: &Linear) -> Var {
        let y = g.matmul(x, g.param(l.w), false, true);
        match l.b {
            Some(b) => g.add(y, g.param(b)),
            None => y,
        }
    }

    fn norm(&self, g: &mut Graph, x: Var, n: &Norm) -> Var {
        g.norm(self.config.norm, x, g.param(n.w), n.b.map(|b| g.param(b)))
    }

    fn drop(&self, g: &mut Graph, x: Var, rng: Option<&mut Rng>) -> Var {
        match rng {
            Some(rng) if self.config.dropout > 0.0 => g.dropout(x, self.config.dropout, rng),
            _ => x,
        }
    }

    /// The logits (B, T, V) for `idx` (B×T ids), in evaluation mode (no dropout).
    pub fn logits(&self, idx: &[usize], b: usize, t: usize) -> Result<ArrayD<f32>> {
        self.check_input(idx, b, t)?;
        let mut g = Graph::new(&self.params.values, &self.workspace);
        let logits = self.forward(&mut g, idx, b, t, None, None);
        Ok(g.value(logits).clone())
    }

    /// The mean cross-entropy of `targets` given `idx`, in evaluation mode.
    pub fn loss(&self, idx: &[usize], targets: &[usize], b: usize, t: usize) -> Result<f32> {
        self.check_input(idx, b, t)?;
        self.check_input(targets, b, t)?;
        let mut g = Graph::new(&self.params.values, &self.workspace);
        let logits = self.forward(&mut g, idx, b, t, None, None);
        let loss = g.cross_entropy(logits, targets);
        Ok(scalar(g.value(loss)))
    }

    /// The attention probabilities of every layer and head for one sequence, (L, nh, T, T).
    pub fn attention(&self, idx: &[usize]) -> Result<Vec<f32>> {
        self.check_input(idx, 1, idx.len())?;
        let mut g = Graph::new(&self.params.values, &self.workspace);
        let mut probs = Vec::with_capacity(self.config.n_layer * self.config.n_head * idx.len() * idx.len());
        self.forward(&mut g, idx, 1, idx.len(), None, Some(&mut probs));
        Ok(probs)
    }

    /// Runs forward and backward in training mode, adding the gradients into the parameters'
    /// gradient buffers, and returns the loss. Gradients are left alone when the loss is not finite.
    pub fn loss_and_grad(
        &mut self,
        idx: &[usize],
        targets: &[usize],
        b: usize,
        t: usize,
        dropout: Option<&mut Rng>,
    ) -> Result<f32> {
        self.check_input(idx, b, t)?;
        self.check_input(targets, b, t)?;
        let mut g = Graph::new(&self.params.values, &self.workspace);
        let logits = self.forward(&mut g, idx, b, t, dropout, None);
        let loss = g.cross_entropy(logits, targets);
        let value = scalar(g.value(loss));
        if value.is_finite() {
            g.backward(loss, &mut self.params.grads);
        }
        Ok(value)
    }
}

fn scalar(x: &ArrayD<f32>) -> f32 {
    x.first().copied().unwrap_or(f32::NAN)
}
