//! A point of the forward pass whose activations a sparse autoencoder reads (`sae/`), by
//! TransformerLens's hook names: the residual stream leaving a block (`hook_resid_post`), what
//! its MLP adds (`hook_mlp_out`), or what the MLP reads, its second norm's output
//! (`ln2.hook_normalized`, a transcoder's input). The model reads a batch's activations there, and scores a pass
//! with them replaced (by their reconstruction, with a feature knocked out, or steered), resuming
//! from the stream after that block (`resume.rs`).

use super::extras::{flat, Extras, Hooks};
use super::gpt::GPT;
use crate::autograd::Graph;
use crate::error::{Error, Result};
use crate::words::{runs::bug, views};
use crate::work::Batch;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};

/// Where activations are read: the stream leaving block `layer`, what its MLP adds to it, or
/// what its MLP reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HookPoint {
    ResidPost { layer: usize },
    MlpOut { layer: usize },
    MlpIn { layer: usize },
}

impl HookPoint {
    pub fn layer(&self) -> usize {
        match *self {
            HookPoint::ResidPost { layer } | HookPoint::MlpOut { layer } | HookPoint::MlpIn { layer } => layer,
        }
    }

    /// TransformerLens's name for it: `blocks.3.hook_resid_post`.
    pub fn hook_name(&self) -> String {
        match *self {
            HookPoint::ResidPost { layer } => format!("blocks.{layer}.hook_resid_post"),
            HookPoint::MlpOut { layer } => format!("blocks.{layer}.hook_mlp_out"),
            HookPoint::MlpIn { layer } => format!("blocks.{layer}.ln2.hook_normalized"),
        }
    }

    /// The name the pass hooks it by (the norm's output is `ln2.hook_out` there).
    fn pass_name(&self) -> String {
        match *self {
            HookPoint::MlpIn { layer } => format!("blocks.{layer}.ln2.hook_out"),
            _ => self.hook_name(),
        }
    }

    /// The point a hook name names.
    pub fn parse(name: &str) -> Option<HookPoint> {
        let rest = name.strip_prefix("blocks.")?;
        let (layer, hook) = rest.split_once('.')?;
        let layer = layer.parse().ok()?;
        match hook {
            "hook_resid_post" => Some(HookPoint::ResidPost { layer }),
            "hook_mlp_out" => Some(HookPoint::MlpOut { layer }),
            "ln2.hook_normalized" => Some(HookPoint::MlpIn { layer }),
            _ => None,
        }
    }

    /// Checks that the point is in a model of `layers` layers.
    pub fn check(&self, layers: usize) -> Result<()> {
        if self.layer() >= layers {
            return Err(Error::Config(views::hook_not_in_model(self.hook_name(), layers, layers.saturating_sub(1))));
        }
        Ok(())
    }
}

/// `b` rows of `t` ids: (ids, b, t).
type Rows<'a> = (&'a [usize], usize, usize);
/// What rewrites a point's activations, (B×T, C) flat.
type Replace<'a> = &'a mut dyn FnMut(&mut [f32]);

impl GPT {
    /// The activations at `point` for `b` rows of `t` ids, in evaluation mode: (B×T, C) flat. The
    /// pass stops at the point's block.
    pub fn activations(&self, ws: &Workspace, idx: &[usize], b: usize, t: usize, point: HookPoint) -> Result<Vec<f32>> {
        Ok(self.activations_at(ws, idx, b, t, &[point])?.swap_remove(0))
    }

    /// The activations at each of `points` (a transcoder's input and output), from one pass that
    /// stops at the last one's block.
    pub fn activations_at(
        &self,
        ws: &Workspace,
        idx: &[usize],
        b: usize,
        t: usize,
        points: &[HookPoint],
    ) -> Result<Vec<Vec<f32>>> {
        self.check_input(idx, b, t)?;
        for point in points {
            point.check(self.config().n_layer)?;
        }
        let last = points.iter().map(HookPoint::layer).max().unwrap_or(0);
        let mut g = Graph::new(&self.params().values, ws);
        let mut hooks = Hooks::default();
        let mut extras = Extras::eval(&[], Some(&mut hooks));
        let mut x = self.embed(&mut g, idx, b, t, &mut extras);
        for block in &self.blocks[..=last] {
            x = block.forward(&mut g, x, &mut extras);
        }
        Ok(points.iter().map(|p| hooks.value(&g, &p.pass_name())).collect())
    }

    /// As [`GPT::score_edited`], with the activations at `point` (B×T rows of C) rewritten by
    /// `replace` before the pass goes on; what the rest of the model reads is the rewritten value.
    pub fn score_replaced(
        &self,
        ws: &Workspace,
        batch: Batch,
        point: HookPoint,
        replace: &mut dyn FnMut(&mut [f32]),
    ) -> Result<(f32, Vec<bool>)> {
        let stream = self.replaced_stream(ws, (batch.idx, batch.b, batch.t), point, replace)?;
        self.score_from(ws, batch, point.layer() + 1, &stream, &[])
    }

    /// The logits (B×T rows of V) of `b` rows of `t` ids with the activations at `point` rewritten
    /// by `replace`.
    pub fn logits_replaced(
        &self,
        idx: &[usize],
        b: usize,
        t: usize,
        point: HookPoint,
        replace: &mut dyn FnMut(&mut [f32]),
    ) -> Result<Vec<f32>> {
        let ws = &self.workspace;
        let stream = self.replaced_stream(ws, (idx, b, t), point, replace)?;
        let mut g = Graph::new(&self.params().values, ws);
        let x = super::edits::given(&mut g, &[b, t, self.config().n_embd], &stream);
        let logits = self.forward_from(&mut g, x, point.layer() + 1, &mut Extras::eval(&[], None));
        Ok(flat(&g, logits))
    }

    /// The stream leaving `point`'s block once `replace` has rewritten the point's activations:
    /// it holds them as one of its terms (or is them).
    fn replaced_stream(&self, ws: &Workspace, rows: Rows, point: HookPoint, replace: Replace) -> Result<Vec<f32>> {
        let (idx, b, t) = rows;
        if let HookPoint::MlpIn { layer } = point {
            return Err(Error::Config(views::mlp_input_edit(layer)));
        }
        let stream_point = HookPoint::ResidPost { layer: point.layer() };
        let [mut stream, mut values]: [Vec<f32>; 2] =
            self.activations_at(ws, idx, b, t, &[stream_point, point])?.try_into().expect("two points read");
        if point == stream_point {
            replace(&mut stream); // the stream is the point's value
        } else {
            let before = values.clone();
            replace(&mut values);
            for ((s, new), old) in stream.iter_mut().zip(&values).zip(&before) {
                *s += new - old;
            }
        }
        Ok(stream)
    }

    /// The activations at `reads` for `batch`, and the gradient of the batch's mean loss at
    /// `writes` (the same point for an autoencoder; a transcoder's input and output), each (B×T, C)
    /// flat: what attribution reads (a change δ at `writes` changes the loss by about δ · gradient).
    pub fn activation_gradients(
        &self,
        ws: &Workspace,
        batch: Batch,
        reads: HookPoint,
        writes: HookPoint,
    ) -> Result<(Vec<f32>, Vec<f32>)> {
        let Batch { idx, targets, b, t } = batch;
        self.check_input(idx, b, t)?;
        self.check_targets(targets, b, t)?;
        reads.check(self.config().n_layer)?;
        writes.check(self.config().n_layer)?;
        let mut g = Graph::new(&self.params().values, ws);
        let mut hooks = Hooks::default();
        let logits = self.forward(&mut g, idx, b, t, &mut Extras::eval(&[], Some(&mut hooks)));
        let var = |point: HookPoint| {
            hooks
                .var(&point.pass_name())
                .ok_or_else(|| Error::Data(bug(format!("no {} in the pass", point.hook_name()))))
        };
        let (at, from) = (var(writes)?, var(reads)?);
        let loss = g.cross_entropy(logits, targets);
        let mut param_grads = vec![0.0; self.params().count()];
        let kept = g.backward_keeping(loss, &mut self.params().views_mut(&mut param_grads), &[at]);
        let grads = kept
            .into_iter()
            .next()
            .flatten()
            .map_or_else(|| vec![0.0; b * t * self.config().n_embd], |d| d.iter().copied().collect());
        Ok((flat(&g, from), grads))
    }
}

#[cfg(test)]
mod tests {
    use super::HookPoint;
    use crate::workspace::Workspace;
    use crate::{Batch, GPTConfig, GPT};

    fn model() -> GPT {
        let config =
            GPTConfig { vocab_size: 11, block_size: 8, n_layer: 3, n_head: 2, n_embd: 8, ..Default::default() };
        GPT::new(config, 4).unwrap()
    }

    const IDS: [usize; 8] = [1, 5, 2, 9, 3, 3, 7, 1];
    const TARGETS: [usize; 8] = [5, 2, 9, 3, 3, 7, 1, 0];

    #[test]
    fn a_point_reads_the_hooked_pass_and_an_identity_replacement_changes_nothing() {
        let m = model();
        let ws = Workspace::default();
        let batch = Batch { idx: &IDS, targets: &TARGETS, b: 2, t: 4 };
        for point in [HookPoint::ResidPost { layer: 1 }, HookPoint::MlpOut { layer: 0 }, HookPoint::MlpOut { layer: 2 }]
        {
            assert_eq!(HookPoint::parse(&point.hook_name()), Some(point));
            let read = m.activations(&ws, &IDS[..4], 1, 4, point).unwrap();
            let hooked = m.hooked(&IDS[..4], None).unwrap();
            assert_eq!(read, hooked.get(&point.hook_name()).unwrap().values, "{point:?}");
            let logits = m.logits_replaced(&IDS, 2, 4, point, &mut |_| {}).unwrap();
            assert_eq!(logits, m.logits(&IDS, 2, 4).unwrap().as_slice().unwrap(), "{point:?}");
            let same = m.score_replaced(&ws, batch, point, &mut |_| {}).unwrap();
            assert_eq!(same, m.score_edited(&ws, batch, &[]).unwrap(), "{point:?}");
        }
    }

    #[test]
    fn zeroing_an_mlp_output_is_the_zero_ablation_and_a_point_past_the_model_is_refused() {
        let m = model();
        let ws = Workspace::default();
        let batch = Batch { idx: &IDS, targets: &TARGETS, b: 2, t: 4 };
        let zeroed = m.score_replaced(&ws, batch, HookPoint::MlpOut { layer: 1 }, &mut |v| v.fill(0.0)).unwrap();
        let site = crate::model::Site::Mlp { layer: 1 };
        let ablated = m.score_edited(&ws, batch, &[crate::model::Edit { site, with: vec![0.0; 4 * 8] }]).unwrap();
        assert!((zeroed.0 - ablated.0).abs() < 1e-6, "{zeroed:?} vs {ablated:?}");
        let error = m.activations(&ws, &IDS, 2, 4, HookPoint::ResidPost { layer: 3 }).unwrap_err().to_string();
        assert!(error.contains("blocks.3.hook_resid_post is not in this model"), "{error}");
    }

    #[test]
    fn the_gradient_at_a_point_matches_finite_differences_of_the_replaced_pass() {
        let m = model();
        let ws = Workspace::default();
        let batch = Batch { idx: &IDS, targets: &TARGETS, b: 2, t: 4 };
        for point in [HookPoint::ResidPost { layer: 1 }, HookPoint::MlpOut { layer: 0 }] {
            let (values, grads) = m.activation_gradients(&ws, batch, point, point).unwrap();
            assert_eq!(values, m.activations(&ws, &IDS, 2, 4, point).unwrap());
            for i in [0, 13, 42, 63] {
                // Small against the stream, which the next norm scales up.
                let h = 1e-3;
                let at = |delta: f32| m.score_replaced(&ws, batch, point, &mut |v| v[i] += delta).unwrap().0 as f64;
                let numeric = (at(h) - at(-h)) / (2.0 * h as f64);
                assert!((numeric - grads[i] as f64).abs() < 5e-4, "{point:?} {i}: {numeric} vs {}", grads[i]);
            }
        }
    }
}
