//! nanoGPT's `Block`: pre-norm attention and MLP, each added back into the residual stream.

use super::attention::CausalSelfAttention;
use super::edits::{apply, given, Site};
use super::extras::Extras;
use super::kv_cache::{LayerCache, Scratch};
use super::layers::Norm;
use super::mlp::Mlp;
use super::rewire::{head_reads, read, Reader};
use crate::autograd::{Graph, Var};
use crate::params::{Init, Params};
use crate::rng::Rng;
use crate::train::FrozenHead;
use ndarray::ArrayD;

pub(crate) struct Block {
    layer: usize,
    pub(super) ln_1: Norm,
    pub(super) attn: CausalSelfAttention,
    pub(super) ln_2: Norm,
    mlp: Mlp,
}

impl Block {
    /// Block `i` of a model shaped by `config`, under `transformer.h.{i}`.
    pub(crate) fn new(p: &mut Params, i: usize, config: &crate::GPTConfig, rng: &mut Rng) -> Self {
        let h = format!("transformer.h.{i}");
        let (c, bias, norm) = (config.n_embd, config.bias, config.norm);
        // Residual projections add up over 2·n_layer paths; scaling them keeps the stream's variance.
        let proj = Init::Normal(0.02 / (2.0 * config.n_layer as f32).sqrt());
        Block {
            layer: i,
            ln_1: Norm::new(p, &format!("{h}.ln_1"), norm, c, bias, rng),
            attn: CausalSelfAttention::new(p, i, config, proj, rng),
            ln_2: Norm::new(p, &format!("{h}.ln_2"), norm, c, bias, rng),
            mlp: Mlp::new(p, &format!("{h}.mlp"), config, proj, rng),
        }
    }

    /// `x + attn(ln_1(x))`, then `+ mlp(ln_2(·))`, with the edits at this layer. Shapes:
    /// (B, T, C) → (B, T, C).
    pub(crate) fn forward(&self, g: &mut Graph, x: Var, extras: &mut Extras) -> Var {
        let layer = self.layer;
        let hook = |name: &str| format!("blocks.{layer}.{name}");
        let x = apply(g, x, extras.edits, 0, |s| matches!(s, Site::Residual { layer: l, .. } if *l == layer));
        extras.hook(|| hook("hook_resid_pre"), x);
        let h = self.ln_1.forward(g, x);
        extras.hook(|| hook("ln1.hook_out"), h);
        let reads = head_reads(g, x, layer, self.attn.n_head, &self.ln_1, extras.rewire.as_deref_mut());
        let a = self.attn.forward(g, h, &reads, extras);
        extras.hook(|| hook("hook_attn_out"), a);
        let x1 = g.add(x, a);
        self.mlp_part(g, x1, extras)
    }

    /// The block when of its attention only head `frozen.head`'s weights move (its input and the
    /// other heads frozen): that head's output added to what the others gave, then the MLP as in
    /// [`Block::forward`]. The same pass but for the order of a sum.
    pub(crate) fn forward_head(&self, g: &mut Graph, x: Var, frozen: &FrozenHead, extras: &mut Extras) -> Var {
        let shape = g.shape(x).to_vec();
        let (normed, others) = (self.ln_1.forward(g, x), given(g, &shape, &frozen.others));
        let a = self.attn.forward_head(g, normed, frozen.head, others);
        let x1 = g.add(x, a);
        self.mlp_part(g, x1, extras)
    }

    /// `x1 + mlp(ln_2(x1))`, `x1` the stream after the attention, with the edits at this layer.
    fn mlp_part(&self, g: &mut Graph, x1: Var, extras: &mut Extras) -> Var {
        let layer = self.layer;
        let hook = |name: &str| format!("blocks.{layer}.{name}");
        extras.hook(|| hook("hook_resid_mid"), x1);
        let read_by_mlp = read(g, x1, Reader::Mlp { layer }, extras.rewire.as_deref_mut());
        let h = self.ln_2.forward(g, read_by_mlp);
        extras.hook(|| hook("ln2.hook_out"), h);
        let input = g.value(h).as_slice().expect("standard layout");
        let m = match extras.rewire.as_deref_mut().and_then(|r| r.mlp_output(layer, input)) {
            Some(out) => {
                let shape = g.shape(h).to_vec();
                given(g, &shape, &out)
            }
            None => self.mlp.forward(g, h, layer, extras),
        };
        let added = extras
            .rewire
            .as_deref_mut()
            .and_then(|r| r.mlp_added(layer, g.value(h).as_slice().expect("standard layout")));
        let m = match added {
            Some(add) => {
                let shape = g.shape(m).to_vec();
                let add = given(g, &shape, &add);
                g.add(m, add)
            }
            None => m,
        };
        let m = apply(g, m, extras.edits, 0, |s| *s == Site::Mlp { layer });
        extras.hook(|| hook("hook_mlp_out"), m);
        if let Some(rewire) = extras.rewire.as_deref_mut() {
            rewire.mlp(layer, g.value(m).as_slice().expect("standard layout"));
        }
        let out = g.add(x1, m);
        extras.hook(|| hook("hook_resid_post"), out);
        out
    }

    /// The same for one new position (generation): `x` (C) is updated in place.
    pub(crate) fn forward_cached(
        &self,
        params: &[ArrayD<f32>],
        x: &mut [f32],
        cache: &mut LayerCache,
        s: &mut Scratch,
    ) {
        let mut h = std::mem::take(&mut s.h);
        let mut update = std::mem::take(&mut s.update);
        self.ln_1.forward_row(params, x, &mut h);
        self.attn.forward_cached(params, &h, cache, s, &mut update);
        x.iter_mut().zip(&update).for_each(|(x, u)| *x += u);
        self.ln_2.forward_row(params, x, &mut h);
        self.mlp.forward_row(params, &h, s, &mut update);
        x.iter_mut().zip(&update).for_each(|(x, u)| *x += u);
        (s.h, s.update) = (h, update);
    }
}
