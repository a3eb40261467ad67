//! nanoGPT's `MLP`: widen to 4C, a nonlinearity, project back to C.

use super::extras::Extras;
use super::kv_cache::Scratch;
use super::layers::{dropout, Linear};
use crate::autograd::{Graph, Var};
use crate::ops::activation::activate;
use crate::ops::Activation;
use crate::params::{Init, Params};
use crate::rng::Rng;
use ndarray::ArrayD;

pub(crate) struct Mlp {
    c_fc: Linear,
    c_proj: Linear,
    activation: Activation,
}

impl Mlp {
    pub(crate) fn new(p: &mut Params, name: &str, config: &crate::GPTConfig, proj: Init, rng: &mut Rng) -> Self {
        let (c, bias) = (config.n_embd, config.bias);
        Mlp {
            c_fc: Linear::new(p, &format!("{name}.c_fc"), c, 4 * c, Init::Normal(0.02), bias, rng),
            c_proj: Linear::new(p, &format!("{name}.c_proj"), 4 * c, c, proj, bias, rng),
            activation: config.activation,
        }
    }

    /// Block `layer`'s MLP. Shapes: (B, T, C) → (B, T, 4C) → (B, T, C).
    pub(crate) fn forward(&self, g: &mut Graph, x: Var, layer: usize, extras: &mut Extras) -> Var {
        let pre = self.c_fc.forward(g, x);
        extras.hook(|| format!("blocks.{layer}.mlp.hook_pre"), pre);
        let h = g.activation(self.activation, pre);
        extras.hook(|| format!("blocks.{layer}.mlp.hook_post"), h);
        let h = self.c_proj.forward(g, h);
        dropout(g, h, extras.dropout.as_mut())
    }

    /// The same for one row (generation), into `out`.
    pub(crate) fn forward_row(&self, params: &[ArrayD<f32>], x: &[f32], s: &mut Scratch, out: &mut Vec<f32>) {
        self.c_fc.forward_row(params, x, &mut s.wide);
        s.wide.iter_mut().for_each(|v| *v = activate(self.activation, *v));
        self.c_proj.forward_row(params, &s.wide, out);
    }
}
