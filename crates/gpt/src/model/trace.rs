//! A forward pass over one sequence kept for looking inside the model ([`Trace`]), and the logit
//! lens, which reads a prediction off the residual stream after any layer.

use super::edits::{self, Edit};
use super::extras::{Extras, Hooks, Trace};
use super::gpt::GPT;
use crate::autograd::Graph;
use crate::error::Result;

impl GPT {
    /// Runs `idx` (one sequence, at most `block_size` ids) in evaluation mode and keeps
    /// everything on the way.
    pub fn trace(&self, idx: &[usize]) -> Result<Trace> {
        self.trace_edited(idx, 1, idx.len(), &[])
    }

    /// Runs `b` rows of `t` ids with `edits` in evaluation mode and keeps everything on the way.
    pub fn trace_edited(&self, idx: &[usize], b: usize, t: usize, edits: &[Edit]) -> Result<Trace> {
        self.check_input(idx, b, t)?;
        edits::check(edits, self.config(), t)?;
        let mut g = Graph::new(&self.params().values, &self.workspace);
        let mut hooks = Hooks::default();
        let logits = self.forward(&mut g, idx, b, t, &mut Extras::eval(edits, Some(&mut hooks)));
        Ok(Trace::from_hooks(&g, hooks, self.config().n_layer, (b, t), logits))
    }

    /// The logit lens: the logits (V) the model would give if a residual-stream row `x` (C)
    /// were the last layer's output: the final norm, then the output projection.
    pub fn lens(&self, x: &[f32]) -> Vec<f32> {
        let (p, mut h, mut logits) = (&self.params().values, Vec::new(), Vec::new());
        self.ln_f.forward_row(p, x, &mut h);
        self.lm_head.forward_row(p, &h, &mut logits);
        logits
    }
}

#[cfg(test)]
mod tests {
    use crate::GPTConfig;
    use crate::GPT;

    #[test]
    fn the_lens_on_the_last_layer_gives_the_models_logits() {
        let config =
            GPTConfig { vocab_size: 11, block_size: 8, n_layer: 3, n_head: 2, n_embd: 16, ..Default::default() };
        let model = GPT::new(config, 2).unwrap();
        let ids = [1, 5, 2, 9, 3];
        let trace = model.trace(&ids).unwrap();
        assert_eq!((trace.residual.len(), trace.attn.len(), trace.pre_activations[0].len()), (4, 3, 5 * 64));
        let logits = model.logits(&ids, 1, 5).unwrap();
        assert_eq!(trace.logits, logits.as_slice().unwrap());
        for t in 0..5 {
            let lens = model.lens(&trace.residual[3][t * 16..(t + 1) * 16]);
            for (a, b) in lens.iter().zip(&trace.logits[t * 11..(t + 1) * 11]) {
                assert!((a - b).abs() < 1e-5, "position {t}: {a} vs {b}");
            }
        }
        // The residual stream is the sum of what came before: embedding + each update.
        let (x0, x1) = (&trace.residual[0], &trace.residual[1]);
        for i in 0..x0.len() {
            assert!((x0[i] + trace.attn[0][i] + trace.mlp[0][i] - x1[i]).abs() < 1e-5);
        }
    }
}
