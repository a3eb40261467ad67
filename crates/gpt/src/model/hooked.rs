//! One sequence's training step, looked at from inside: a forward pass in evaluation mode that
//! names every value it computes by TransformerLens's hook names, the loss at one position, and
//! the backward pass's gradient of that loss at every named value and every parameter. Nothing
//! of the model changes; what the walk through the model shows (`inspect/walk/`) comes from here.

use super::extras::{flat, Extras, Hooks};
use super::gpt::GPT;
use crate::autograd::Graph;
use crate::error::{Error, Result};
use crate::ops::IGNORE;
use crate::words::runs::bug;

/// A hooked pass: every named value and, when a target was given, the loss's gradient at it.
#[derive(Clone, Debug, Default)]
pub struct Hooked {
    /// Positions of the one sequence.
    pub t: usize,
    /// Each hook point's name (`blocks.0.attn.hook_z`), shape and values, in the order the pass
    /// reached them, the logits (`logits`, (T, V)) last.
    pub values: Vec<HookValue>,
    /// Every layer's attention probabilities, (L, nh, T, T).
    pub pattern: Vec<f32>,
    /// The loss at the target's position, −log p(target), when a target was given.
    pub loss: Option<f32>,
    /// Its gradient at every parameter, flat (see [`crate::params::Params`]).
    pub param_grads: Vec<f32>,
}

/// One hook point's value, and the loss's gradient there (none without a target, or where the
/// loss does not depend on it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookValue {
    pub name: String,
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
    pub grads: Option<Vec<f32>>,
}

impl Hooked {
    /// The hook point called `name`.
    pub fn get(&self, name: &str) -> Option<&HookValue> {
        self.values.iter().find(|v| v.name == name)
    }
}

impl GPT {
    /// Runs `idx` (one sequence) in evaluation mode with every value named; with `target`
    /// `(position, token)`, also the loss −log p(token) at that position and its backward pass.
    pub fn hooked(&self, idx: &[usize], target: Option<(usize, usize)>) -> Result<Hooked> {
        let t = idx.len();
        self.check_input(idx, 1, t)?;
        let mut targets = vec![IGNORE; t];
        if let Some((position, token)) = target {
            let slot = targets.get_mut(position).filter(|_| token < self.config().vocab_size);
            *slot.ok_or_else(|| Error::Data(bug(format!("no target {token} at position {position} of {t}"))))? = token;
        }
        let mut g = Graph::new(&self.params().values, &self.workspace);
        let mut hooks = Hooks::default();
        let logits = self.forward(&mut g, idx, 1, t, &mut Extras::eval(&[], Some(&mut hooks)));
        hooks.vars.push(("logits".into(), logits));
        let (mut loss, mut param_grads, mut grads) = (None, vec![], vec![None; hooks.vars.len()]);
        if target.is_some() {
            let l = g.cross_entropy(logits, &targets);
            loss = g.value(l).first().copied();
            param_grads = vec![0.0; self.params().count()];
            let kept: Vec<_> = hooks.vars.iter().map(|&(_, v)| v).collect();
            grads = g.backward_keeping(l, &mut self.params().views_mut(&mut param_grads), &kept);
        }
        let values = hooks
            .vars
            .iter()
            .zip(grads)
            .map(|((name, v), grad)| HookValue {
                name: name.clone(),
                shape: g.shape(*v).to_vec(),
                values: flat(&g, *v),
                grads: grad.map(|d| d.iter().copied().collect()),
            })
            .collect();
        Ok(Hooked { t, values, pattern: std::mem::take(&mut hooks.pattern), loss, param_grads })
    }
}

#[cfg(test)]
mod tests {
    use crate::train::Trainable;
    use crate::work::Batch;
    use crate::workspace::Workspace;
    use crate::{GPTConfig, GPT};

    fn model(config: GPTConfig) -> GPT {
        GPT::new(GPTConfig { vocab_size: 11, block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, ..config }, 5).unwrap()
    }

    #[test]
    fn a_hooked_pass_names_every_stage_and_its_step_is_the_training_step() {
        for config in [GPTConfig::default(), GPTConfig { rope: true, qk_norm: true, ..GPTConfig::default() }] {
            let m = model(config);
            let idx = [3, 1, 4, 1, 5];
            let hooked = m.hooked(&idx, Some((3, 9))).unwrap();
            let names: Vec<&str> = hooked.values.iter().map(|v| v.name.as_str()).collect();
            for name in ["hook_embed", "blocks.1.attn.hook_qkv", "blocks.1.attn.hook_z", "blocks.0.mlp.hook_post"] {
                assert!(names.contains(&name), "{name} in {names:?}");
            }
            assert_eq!(names.contains(&"hook_pos_embed"), !m.config().rope);
            assert_eq!(names.contains(&"blocks.0.attn.hook_rot_q"), m.config().rope);
            // The logits are the model's, and the loss the training loss of that one target.
            let logits = m.logits(&idx, 1, 5).unwrap();
            assert_eq!(hooked.get("logits").unwrap().values, logits.as_slice().unwrap());
            let mut targets = vec![crate::ops::IGNORE; 5];
            targets[3] = 9;
            let mut grads = vec![0.0; m.params().count()];
            let batch = Batch { idx: &idx, targets: &targets, b: 1, t: 5 };
            let loss = m.loss_and_grad(&Workspace::default(), batch, None, 1.0, &mut grads).unwrap();
            assert_eq!(hooked.loss, Some(loss));
            assert_eq!(hooked.param_grads, grads, "the same backward pass, bit for bit");
            // dL/dlogits is p − onehot at the target's position, and nothing elsewhere.
            let dlogits = hooked.get("logits").unwrap().grads.clone().unwrap();
            let row = &logits.as_slice().unwrap()[3 * 11..4 * 11];
            let max = row.iter().cloned().fold(f32::MIN, f32::max);
            let total: f32 = row.iter().map(|l| (l - max).exp()).sum();
            for (k, &d) in dlogits[3 * 11..4 * 11].iter().enumerate() {
                let p = (row[k] - max).exp() / total;
                assert!((d - (p - if k == 9 { 1.0 } else { 0.0 })).abs() < 1e-6, "{k}: {d} vs p {p}");
            }
            assert!(dlogits[4 * 11..].iter().all(|&d| d == 0.0), "a later position does not count");
        }
    }
}
