//! nanoGPT's `CausalSelfAttention`: one fused q|k|v projection, causal multi-head attention and an
//! output projection.
//!
//! Attention runs in two places, and a change to it touches both:
//! - [`CausalSelfAttention::forward`], training and evaluation over whole sequences, through the
//!   fused kernel in `ops/attention.rs`;
//! - [`CausalSelfAttention::forward_cached`], generation one position at a time against the keys
//!   and values cached for the earlier ones (`kv_cache.rs`), through `ops::attention::attend_cached`.
//!
//! With QK-norm both first divide each head's queries and keys by their root mean square
//! (`ops/qk_norm.rs`); with rotary embeddings they then turn them by their positions (`ops/rope.rs`).
//! `kv_cache.rs`'s test holds the two equal.

use super::edits::{apply, Site};
use super::extras::Extras;
use super::kv_cache::{LayerCache, Scratch};
use super::layers::{dropout, Linear};
use super::rewire::{splice, HeadRead};
use crate::autograd::{Graph, Var};
use crate::ops::attention::attend_cached;
use crate::ops::qk_norm::normalize_head;
use crate::ops::rope::rotate_head;
use crate::params::{Init, Params};
use crate::rng::Rng;
use ndarray::ArrayD;

pub(crate) struct CausalSelfAttention {
    layer: usize,
    pub(crate) c_attn: Linear,
    pub(crate) c_proj: Linear,
    pub(super) n_head: usize,
    rope: bool,
    qk_norm: bool,
}

impl CausalSelfAttention {
    /// Registers `transformer.h.{layer}.attn.c_attn` and `….c_proj` of a block with `c` channels.
    pub(crate) fn new(p: &mut Params, layer: usize, config: &crate::GPTConfig, proj: Init, rng: &mut Rng) -> Self {
        let (c, bias) = (config.n_embd, config.bias);
        let name = format!("transformer.h.{layer}.attn");
        CausalSelfAttention {
            layer,
            c_attn: Linear::new(p, &format!("{name}.c_attn"), c, 3 * c, Init::Normal(0.02), bias, rng),
            c_proj: Linear::new(p, &format!("{name}.c_proj"), c, c, proj, bias, rng),
            n_head: config.n_head,
            rope: config.rope,
            qk_norm: config.qk_norm,
        }
    }

    /// Shapes: (B, T, C) → (B, T, C).
    /// Hooked as TransformerLens names the stages (`hook_qkv` is the fused q|k|v projection; q and
    /// k again after QK-norm, `q_norm.hook_normalized`, and after RoPE, `hook_rot_q`).
    /// `reads` are the head inputs a circuit's pass reads from a stream of their own.
    pub(crate) fn forward(&self, g: &mut Graph, x: Var, reads: &[HeadRead], extras: &mut Extras) -> Var {
        let layer = self.layer;
        let hook = |name: &str| format!("blocks.{layer}.attn.{name}");
        let qkv = self.c_attn.forward(g, x); // (B, T, 3C)
        let params = g.params();
        let weights = (self.c_attn.weight.slice(params), self.c_attn.bias.map(|b| b.slice(params)));
        let mut qkv = splice(g, qkv, reads, self.n_head, weights);
        extras.hook(|| hook("hook_qkv"), qkv);
        if self.qk_norm {
            qkv = g.qk_norm(qkv, self.n_head);
            extras.hook(|| hook("q_norm.hook_normalized"), qkv);
        }
        if self.rope {
            qkv = g.rope(qkv, self.n_head);
            extras.hook(|| hook("hook_rot_q"), qkv);
        }
        let y = match extras.rewire.as_deref_mut().and_then(|r| r.pattern(layer)) {
            Some(pattern) => g.frozen_attention(qkv, self.n_head, &pattern),
            None => {
                let attn_dropout = extras.dropout.as_mut().filter(|d| d.p > 0.0).map(|d| (d.p, &mut *d.rng));
                let capture = extras.hooks.as_deref_mut().map(|h| &mut h.pattern);
                g.causal_attention(qkv, self.n_head, attn_dropout, capture) // (B, T, C)
            }
        };
        let head_size = g.shape(y)[2] / self.n_head;
        let y = apply(g, y, extras.edits, head_size, |s| matches!(s, Site::Head { layer: l, .. } if *l == layer));
        extras.hook(|| hook("hook_z"), y);
        if let Some(rewire) = extras.rewire.as_deref_mut() {
            rewire.heads(layer, g.value(y).as_slice().expect("standard layout"));
        }
        let y = self.c_proj.forward(g, y);
        dropout(g, y, extras.dropout.as_mut())
    }

    /// Head `head` alone from `x` (ln_1's output, B × T × C), its part of the output projection
    /// added to `others` (what the other heads and the bias give): its own rows of the q|k|v
    /// projection and columns of the output projection are all a pass through it reads.
    pub(crate) fn forward_head(&self, g: &mut Graph, x: Var, head: usize, others: Var) -> Var {
        let c = g.shape(x)[2];
        let hs = c / self.n_head;
        let own = |third: usize| third * c + head * hs..third * c + (head + 1) * hs;
        let rows = [own(0), own(1), own(2)];
        let w = g.take(self.c_attn.weight.var(g), &rows, 0..c);
        let mut qkv = g.matmul(x, w, false, true); // (B, T, 3hs)
        if let Some(bias) = self.c_attn.bias {
            let bias = g.take(bias.var(g), &rows, 0..1);
            qkv = g.add(qkv, bias);
        }
        if self.qk_norm {
            qkv = g.qk_norm(qkv, 1);
        }
        if self.rope {
            qkv = g.rope(qkv, 1);
        }
        let y = g.causal_attention(qkv, 1, None, None); // (B, T, hs)
        let every_row = 0..c;
        let w = g.take(self.c_proj.weight.var(g), std::slice::from_ref(&every_row), head * hs..(head + 1) * hs);
        let own = g.matmul(y, w, false, true);
        g.add(others, own)
    }

    /// One new position: `x` (C) is the normalised input row; its key and value join `cache`, and
    /// the attention output for it lands in `out` (C).
    pub(crate) fn forward_cached(
        &self,
        params: &[ArrayD<f32>],
        x: &[f32],
        cache: &mut LayerCache,
        s: &mut Scratch,
        out: &mut Vec<f32>,
    ) {
        let c = x.len();
        self.c_attn.forward_row(params, x, &mut s.qkv);
        if self.qk_norm {
            s.qkv[..2 * c].chunks_exact_mut(c / self.n_head).for_each(|head| {
                normalize_head(head);
            });
        }
        if self.rope {
            let position = cache.keys.len() / c;
            s.qkv[..2 * c].chunks_exact_mut(c / self.n_head).for_each(|head| rotate_head(head, position));
        }
        let (q, kv) = s.qkv.split_at(c);
        cache.keys.extend_from_slice(&kv[..c]);
        cache.values.extend_from_slice(&kv[c..]);
        s.y.clear();
        s.y.resize(c, 0.0);
        attend_cached(q, &cache.keys, &cache.values, self.n_head, &mut s.scores, &mut s.y);
        self.c_proj.forward_row(params, &s.y, out);
    }
}
