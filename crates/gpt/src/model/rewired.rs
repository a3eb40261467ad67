//! Passes of the model as a graph of nodes (`rewire.rs`): each head's write into the stream, a
//! pass with a [`Rewire`] (from the start, or resumed at a block), and a metric's gradient at every
//! reader's input, as if each reader read its own copy of the stream.

use super::extras::{Extras, Hooks, FINAL_STREAM};
use super::gpt::GPT;
use super::rewire::{readers, HeadInput, Rewire};
use crate::autograd::Graph;
use crate::error::{Error, Result};
use crate::ops::gemm::gemm;
use crate::words::runs::bug;
use ndarray::{s, ArrayD, ArrayView2, ArrayViewMut2};

/// The metric's gradient at every reader's input, and the logits it was taken at.
#[derive(Clone, Debug, Default)]
pub struct ReaderGrads {
    /// The logits (B, T, V).
    pub logits: Vec<f32>,
    /// By reader, in [`readers`]' order: (B, T, C) each.
    pub grads: Vec<Vec<f32>>,
}

impl GPT {
    /// What each head of layer `layer` writes into the stream, given the layer's `z` (rows of
    /// C, heads side by side): its slice of the output projection, without the projection's bias
    /// (which no head owns). One (rows, C) value per head.
    pub fn head_outputs(&self, layer: usize, z: &[f32]) -> Vec<Vec<f32>> {
        let (c, n_head) = (self.config().n_embd, self.config().n_head);
        let hs = c / n_head;
        let rows = z.len() / c;
        let proj = &self.blocks[layer].attn.c_proj;
        let w = ArrayView2::from_shape((c, c), proj.weight.slice(&self.params().values)).expect("(C, C)");
        let z = ArrayView2::from_shape((rows, c), z).expect("rows of C");
        (0..n_head)
            .map(|h| {
                let mut out = vec![0.0; rows * c];
                let mut o = ArrayViewMut2::from_shape((rows, c), &mut out[..]).expect("sized");
                let cols = s![.., h * hs..(h + 1) * hs];
                gemm(1.0, &z.slice(cols), &w.slice(cols).t(), false, &mut o);
                out
            })
            .collect()
    }

    /// The logits (B, T, V) of `b` rows of `t` ids run with `rewire`: from the start, or
    /// resumed at block `from` from `stream`, the stream entering it in a pass without changes
    /// (every change the rewire makes being at that block or later).
    pub fn rewired_logits(
        &self,
        idx: &[usize],
        (b, t): (usize, usize),
        resume: Option<(usize, &[f32])>,
        rewire: &mut dyn Rewire,
    ) -> Result<Vec<f32>> {
        self.check_input(idx, b, t)?;
        let mut g = Graph::new(&self.params().values, &self.workspace);
        let mut extras = Extras { dropout: None, edits: &[], hooks: None, rewire: Some(rewire) };
        let logits = match resume {
            Some(at) => self.resume(&mut g, at, (b, t), &mut extras)?,
            None => self.forward(&mut g, idx, b, t, &mut extras),
        };
        Ok(g.value(logits).as_slice().expect("standard layout").to_vec())
    }

    /// Runs `b` rows of `t` ids with `rewire`, and back-propagates `seed(logits)` (the gradient
    /// of some metric at the logits, (B, T, V)) to every reader's input: the gradient through
    /// that reader alone, as if it read its own copy of the stream.
    pub fn reader_grads(
        &self,
        idx: &[usize],
        (b, t): (usize, usize),
        rewire: &mut dyn Rewire,
        seed: impl FnOnce(&[f32]) -> Vec<f32>,
    ) -> Result<ReaderGrads> {
        self.check_input(idx, b, t)?;
        let mut g = Graph::new(&self.params().values, &self.workspace);
        let mut hooks = Hooks::default();
        let mut extras = Extras { dropout: None, edits: &[], hooks: Some(&mut hooks), rewire: Some(rewire) };
        let logits_var = self.forward(&mut g, idx, b, t, &mut extras);
        let logits = g.value(logits_var).as_slice().expect("standard layout").to_vec();
        let seed = seed(&logits);
        if seed.len() != logits.len() {
            return Err(Error::Data(bug(format!("a seed of {} values for {} logits", seed.len(), logits.len()))));
        }
        let (layers, c) = (self.config().n_layer, self.config().n_embd);
        let var = |name: String| hooks.var(&name).expect("every block is hooked");
        let mut kept = Vec::with_capacity(2 * layers + 1);
        for l in 0..layers {
            kept.push(var(format!("blocks.{l}.attn.hook_qkv")));
            kept.push(var(format!("blocks.{l}.ln2.hook_out")));
        }
        kept.push(var("ln_final.hook_out".into()));
        let mut param_grads = vec![0.0; self.params().count()];
        let seed = ArrayD::from_shape_vec(g.shape(logits_var), seed).expect("sized above");
        let found = g.backward_from_keeping(logits_var, seed, &mut self.params().views_mut(&mut param_grads), &kept);
        let grad = |i: usize, width: usize| -> Vec<f32> {
            found[i].as_ref().map_or_else(|| vec![0.0; b * t * width], |d| d.iter().copied().collect())
        };
        let value = |name: String| hooks.value(&g, &name);
        let params = &self.params().values;
        let mut grads = Vec::with_capacity(readers(layers, self.config().n_head).len());
        for l in 0..layers {
            let block = &self.blocks[l];
            let (x, dqkv) = (value(format!("blocks.{l}.hook_resid_pre")), grad(2 * l, 3 * c));
            let w = ArrayView2::from_shape((3 * c, c), block.attn.c_attn.weight.slice(params)).expect("(3C, C)");
            let dqkv = ArrayView2::from_shape((b * t, 3 * c), &dqkv[..]).expect("sized");
            let hs = c / self.config().n_head;
            for part in HeadInput::ALL {
                for head in 0..self.config().n_head {
                    let at = part.index() * c + head * hs;
                    let mut dy = vec![0.0; b * t * c];
                    let mut d = ArrayViewMut2::from_shape((b * t, c), &mut dy[..]).expect("sized");
                    gemm(1.0, &dqkv.slice(s![.., at..at + hs]), &w.slice(s![at..at + hs, ..]), false, &mut d);
                    grads.push(block.ln_1.input_grads(params, &x, &dy));
                }
            }
            let x1 = value(format!("blocks.{l}.hook_resid_mid"));
            grads.push(block.ln_2.input_grads(params, &x1, &grad(2 * l + 1, c)));
        }
        grads.push(self.ln_f.input_grads(params, &value(FINAL_STREAM.into()), &grad(2 * layers, c)));
        Ok(ReaderGrads { logits, grads })
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{readers, Reader, Rewire};
    use crate::{GPTConfig, GPT};

    /// Adds `scale` times a fixed direction to one reader's input.
    struct Nudge {
        reader: Reader,
        delta: Vec<f32>,
    }

    impl Rewire for Nudge {
        fn delta(&mut self, reader: Reader) -> Option<Vec<f32>> {
            (reader == self.reader).then(|| self.delta.clone())
        }
    }

    struct Nothing;

    impl Rewire for Nothing {
        fn delta(&mut self, _: Reader) -> Option<Vec<f32>> {
            None
        }
    }

    #[test]
    fn each_readers_gradient_is_the_change_a_nudge_to_its_input_makes() {
        let configs = [
            GPTConfig::default(),
            GPTConfig { rope: true, qk_norm: true, ..GPTConfig::default() },
            GPTConfig { norm: crate::ops::NormKind::RmsNorm, bias: true, ..GPTConfig::default() },
        ];
        for config in configs {
            let config = GPTConfig { vocab_size: 11, block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, ..config };
            let model = GPT::new(config, 7).unwrap();
            let (b, t) = (2, 5);
            let idx: Vec<usize> = (0..b * t).map(|i| (i * 7 + 2) % 11).collect();
            // The metric: logit 3 minus logit 5 at every row's last position.
            let metric = |logits: &[f32]| -> f64 {
                (0..b).map(|r| f64::from(logits[(r * t + t - 1) * 11 + 3] - logits[(r * t + t - 1) * 11 + 5])).sum()
            };
            let seed = |logits: &[f32]| {
                let mut s = vec![0.0; logits.len()];
                for r in 0..b {
                    s[(r * t + t - 1) * 11 + 3] = 1.0;
                    s[(r * t + t - 1) * 11 + 5] = -1.0;
                }
                s
            };
            let grads = model.reader_grads(&idx, (b, t), &mut Nothing, seed).unwrap().grads;
            let plain = model.rewired_logits(&idx, (b, t), None, &mut Nothing).unwrap();
            assert_eq!(plain, model.logits(&idx, b, t).unwrap().as_slice().unwrap(), "no rewiring, the same pass");
            let direction: Vec<f32> = (0..b * t * 8).map(|i| ((i * 37 % 17) as f32 - 8.0) / 8.0).collect();
            for (reader, grad) in readers(2, 2).into_iter().zip(&grads) {
                let at = |s: f32| {
                    let delta = direction.iter().map(|d| d * s).collect();
                    metric(&model.rewired_logits(&idx, (b, t), None, &mut Nudge { reader, delta }).unwrap())
                };
                let slope = |eps: f32| (at(eps) - at(-eps)) / (2.0 * f64::from(eps));
                // Richardson's extrapolation takes out the central difference's h² term.
                let numeric = (4.0 * slope(1e-3) - slope(2e-3)) / 3.0;
                let analytic: f64 = grad.iter().zip(&direction).map(|(g, d)| f64::from(g * d)).sum();
                let tolerance = 1e-2 * analytic.abs() + 5e-5;
                assert!((numeric - analytic).abs() < tolerance, "{reader:?}: {numeric} vs {analytic}");
            }
        }
    }
}
