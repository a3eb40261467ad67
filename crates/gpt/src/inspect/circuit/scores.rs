//! Each edge's effect on the metric by attribution: what patching it from the corrupted run into
//! the clean one would change the metric by, estimated from gradients and averaged over the pairs
//! (exactly, by doing it: `model/edge_patching.rs`):
//! - EAP (Syed et al. 2023): the writer's corrupted − clean output times the metric's gradient at
//!   the reader's input;
//! - EAP-IG (Hanna et al. 2024): the same with the gradient averaged along the way from the
//!   corrupted embeddings to the clean ones, `steps` points `k / steps`, k from 0, as EAP-IG's
//!   `EAP-IG-inputs` takes them.

use crate::error::{Error, Result};
use crate::model::{EdgeGraph, Reader, Rewire, Runs, GPT};
use crate::words::views;
use crate::work::edge_plan::Metric;

/// The embeddings moved `alpha` of the way from the corrupted ones to the clean ones.
struct Interpolated<'a> {
    clean: &'a [f32],
    difference: &'a [f32],
    alpha: f32,
}

impl Rewire for Interpolated<'_> {
    fn embedding(&mut self, _: &[f32]) -> Option<Vec<f32>> {
        let shift = 1.0 - self.alpha;
        Some(self.clean.iter().zip(self.difference).map(|(c, d)| c + shift * d).collect())
    }

    fn delta(&mut self, _: Reader) -> Option<Vec<f32>> {
        None
    }
}

/// EAP's scores (`steps` none: the gradient at the clean run) or EAP-IG's (averaged over
/// `steps` points from the corrupted embeddings towards the clean ones).
pub(super) fn attribution(
    model: &GPT,
    graph: &EdgeGraph,
    runs: &[Runs],
    metric: Metric,
    steps: Option<usize>,
) -> Result<Vec<f32>> {
    if steps == Some(0) {
        return Err(Error::Config(views::ig_steps()));
    }
    let n: usize = runs.iter().map(|r| r.group.rows()).sum();
    let mut scores = vec![0.0; graph.edges.len()];
    for run in runs {
        let (group, shape) = (run.group, (run.group.rows(), run.group.t));
        let alphas: Vec<f32> = match steps {
            None => vec![1.0],
            Some(m) => (0..m).map(|k| k as f32 / m as f32).collect(),
        };
        let mut grads: Vec<Vec<f32>> = Vec::new();
        for &alpha in &alphas {
            let mut rewire = Interpolated { clean: &run.clean[0], difference: &run.difference[0], alpha };
            let seed = |logits: &[f32]| {
                let mut seed = vec![0.0; logits.len()];
                let (row, v) = (logits.len() / group.rows(), logits.len() / group.rows() / group.t);
                for r in 0..group.rows() {
                    let last = (r + 1) * row - v..(r + 1) * row;
                    let pair = (group.answers[r], group.wrongs[r]);
                    metric.grad(&logits[last.clone()], pair, 1.0 / (n * alphas.len()) as f32, &mut seed[last]);
                }
                seed
            };
            let found = model.reader_grads(&group.clean, shape, &mut rewire, seed)?.grads;
            if grads.is_empty() {
                grads = found;
            } else {
                grads.iter_mut().zip(found).for_each(|(g, f)| g.iter_mut().zip(f).for_each(|(g, f)| *g += f));
            }
        }
        for (score, edge) in scores.iter_mut().zip(&graph.edges) {
            let (d, g) = (&run.difference[edge.writer], &grads[edge.reader]);
            *score += d.iter().zip(g).map(|(&d, &g)| f64::from(d) * f64::from(g)).sum::<f64>() as f32;
        }
    }
    Ok(scores)
}
