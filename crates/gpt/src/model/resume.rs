//! A forward pass resumed part-way: from the residual stream that a pass without edits had
//! entering some block, with edits at that block or later. Everything before it is the same with
//! or without them, so the result is bit for bit a whole pass's, for the cost of the layers from
//! there on: knocking out each part in turn (the ablation grid) reads a third fewer layers.

use super::edits::{self, Edit};
use super::extras::Extras;
use super::gpt::GPT;
use crate::autograd::{Graph, Var};
use crate::error::{Error, Result};
use crate::words::runs::bug;
use crate::work::Batch;
use crate::workspace::Workspace;

impl GPT {
    /// As [`GPT::score_edited`], resuming at block `from` (the number of layers: after the last)
    /// from `stream` (B×T×C), the stream entering it in a pass without edits, as
    /// [`Trace::residual`](super::Trace) keeps it; every edit at block `from` or later.
    pub fn score_from(
        &self,
        ws: &Workspace,
        batch: Batch,
        from: usize,
        stream: &[f32],
        edits: &[Edit],
    ) -> Result<(f32, Vec<bool>)> {
        let Batch { idx, targets, b, t } = batch;
        self.check_input(idx, b, t)?;
        self.check_targets(targets, b, t)?;
        edits::check(edits, self.config(), t)?;
        if let Some(early) = edits.iter().find(|e| e.site.layer() < from) {
            return Err(Error::Data(bug(format!(
                "{} comes before layer {}, where the pass resumes",
                early.site.label(),
                from + 1
            ))));
        }
        let mut g = Graph::new(&self.params().values, ws);
        let logits = self.resume(&mut g, (from, stream), (b, t), &mut Extras::eval(edits, None))?;
        Ok(self.score_logits(&mut g, logits, batch))
    }

    /// The logits of a pass resumed at block `from` (the number of layers: after the last) from
    /// `stream` (B×T×C), recorded into `g` with `extras`.
    pub(super) fn resume(
        &self,
        g: &mut Graph,
        (from, stream): (usize, &[f32]),
        (b, t): (usize, usize),
        extras: &mut Extras,
    ) -> Result<Var> {
        let (layers, c) = (self.config().n_layer, self.config().n_embd);
        if from > layers {
            return Err(Error::Data(bug(format!(
                "the model has {layers} layers: a pass cannot resume at layer {from}"
            ))));
        }
        if Some(stream.len()) != b.checked_mul(t).and_then(|n| n.checked_mul(c)) {
            return Err(Error::Data(bug(format!("expected a stream of {b}×{t}×{c} values, got {}", stream.len()))));
        }
        let x = edits::given(g, &[b, t, c], stream);
        Ok(self.forward_from(g, x, from, extras))
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{head_columns, Edit, Site};
    use crate::work::Batch;
    use crate::workspace::Workspace;
    use crate::{GPTConfig, GPT};

    #[test]
    fn a_resumed_pass_gives_a_whole_pass_bits() {
        let config =
            GPTConfig { vocab_size: 11, block_size: 8, n_layer: 3, n_head: 2, n_embd: 16, ..Default::default() };
        let model = GPT::new(config, 5).unwrap();
        let (b, t) = (2, 6);
        let idx: Vec<usize> = (0..b * t).map(|i| (i * 7 + 3) % 11).collect();
        let targets: Vec<usize> = (0..b * t).map(|i| (i * 5 + 1) % 11).collect();
        let batch = Batch { idx: &idx, targets: &targets, b, t };
        let clean = model.trace_edited(&idx, b, t, &[]).unwrap();
        let ws = Workspace::default();
        let whole = |edits: &[Edit]| model.score_edited(&ws, batch, edits).unwrap();
        let resumed =
            |from: usize, edits: &[Edit]| model.score_from(&ws, batch, from, &clean.residual[from], edits).unwrap();
        assert_eq!(resumed(3, &[]), whole(&[]), "after the last layer");
        assert_eq!(resumed(0, &[]), whole(&[]), "from the start");
        for layer in 0..3 {
            let head = [Edit { site: Site::Head { layer, head: 1 }, with: head_columns(&vec![0.5; t * 16], 16, 1, 8) }];
            assert_eq!(resumed(layer, &head), whole(&head), "head 2 of layer {} knocked out", layer + 1);
            let mlp = [Edit { site: Site::Mlp { layer }, with: vec![0.0; t * 16] }];
            assert_eq!(resumed(layer, &mlp), whole(&mlp), "MLP {} knocked out", layer + 1);
        }
        let early = [Edit { site: Site::Mlp { layer: 0 }, with: vec![0.0; t * 16] }];
        let refused = model.score_from(&ws, batch, 1, &clean.residual[1], &early).unwrap_err();
        assert!(refused.to_string().contains("MLP1 comes before layer 2"), "{refused}");
        assert!(model.score_from(&ws, batch, 4, &clean.residual[3], &[]).is_err(), "past the last layer");
        assert!(model.score_from(&ws, batch, 1, &clean.residual[1][1..], &[]).is_err(), "a stream too short");
    }
}
