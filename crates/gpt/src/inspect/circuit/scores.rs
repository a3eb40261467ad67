//! Each edge's effect on the metric, three ways. An edge's score estimates what patching it from
//! the corrupted run into the clean one changes the metric by, averaged over the pairs:
//! - exactly, by doing it: the reader sees the clean stream plus the writer's corrupted output
//!   minus its clean one, and the pass runs on from that reader's block (path patching);
//! - EAP (Syed et al. 2023): that difference times the metric's gradient at the reader's input;
//! - EAP-IG (Hanna et al. 2024): the same with the gradient averaged along the way from the
//!   corrupted embeddings to the clean ones, `steps` points `k / steps`, k from 0, as EAP-IG's
//!   `EAP-IG-inputs` takes them.

use super::graph::{EdgeGraph, Writer};
use super::pairs::Group;
use super::request::Metric;
use crate::error::{Error, Result};
use crate::model::{Reader, Rewire, Trace, GPT};

/// A group's clean and corrupted runs: what every edge's score reads.
pub(super) struct Runs<'g> {
    pub group: &'g Group,
    /// The clean stream entering each block, then leaving the last.
    pub stream: Vec<Vec<f32>>,
    /// Each writer's output on the clean prompts, and the corrupted minus the clean.
    pub clean: Vec<Vec<f32>>,
    pub difference: Vec<Vec<f32>>,
    /// The metric of each row, clean and corrupted.
    pub clean_metric: Vec<f32>,
    pub corrupted_metric: Vec<f32>,
}

/// Each writer's output in a traced pass, in [`EdgeGraph::writers`]' order.
pub(super) fn writer_outputs(model: &GPT, graph: &EdgeGraph, trace: &Trace) -> Vec<Vec<f32>> {
    let heads: Vec<Vec<Vec<f32>>> = (0..graph.n_layer).map(|l| model.head_outputs(l, &trace.heads[l])).collect();
    graph
        .writers
        .iter()
        .map(|w| match *w {
            Writer::Input => trace.residual[0].clone(),
            Writer::Head { layer, head } => heads[layer][head].clone(),
            Writer::Mlp { layer } => trace.mlp[layer].clone(),
        })
        .collect()
}

/// The metric of each row of `logits` (B, T, V), read at the last position.
pub(super) fn metric_rows(logits: &[f32], group: &Group, metric: Metric) -> Vec<f32> {
    let row = logits.len() / group.rows();
    let v = row / group.t;
    (0..group.rows())
        .map(|r| metric.of(&logits[(r + 1) * row - v..(r + 1) * row], group.answers[r], group.wrongs[r]))
        .collect()
}

impl<'g> Runs<'g> {
    pub(super) fn new(model: &GPT, graph: &EdgeGraph, group: &'g Group, metric: Metric) -> Result<Runs<'g>> {
        let (b, t) = (group.rows(), group.t);
        let clean = model.trace_edited(&group.clean, b, t, &[])?;
        let corrupted = model.trace_edited(&group.corrupted, b, t, &[])?;
        let clean_out = writer_outputs(model, graph, &clean);
        let difference = writer_outputs(model, graph, &corrupted)
            .into_iter()
            .zip(&clean_out)
            .map(|(c, k)| c.iter().zip(k).map(|(c, k)| c - k).collect())
            .collect();
        Ok(Runs {
            group,
            clean_metric: metric_rows(&clean.logits, group, metric),
            corrupted_metric: metric_rows(&corrupted.logits, group, metric),
            stream: clean.residual,
            clean: clean_out,
            difference,
        })
    }
}

/// One reader sees the stream shifted by one writer's difference.
struct OneEdge<'a> {
    reader: Reader,
    delta: &'a [f32],
}

impl Rewire for OneEdge<'_> {
    fn delta(&mut self, reader: Reader) -> Option<Vec<f32>> {
        (reader == self.reader).then(|| self.delta.to_vec())
    }
}

/// Every edge patched on its own: the mean change of the metric over all pairs (`n`).
pub(super) fn exact(model: &GPT, graph: &EdgeGraph, runs: &[Runs], metric: Metric) -> Result<Vec<f32>> {
    let n: usize = runs.iter().map(|r| r.group.rows()).sum();
    let mut scores = vec![0.0; graph.edges.len()];
    for run in runs {
        let (group, shape) = (run.group, (run.group.rows(), run.group.t));
        for (score, edge) in scores.iter_mut().zip(&graph.edges) {
            let from = graph.layer_of(edge);
            let mut rewire = OneEdge { reader: graph.readers[edge.reader], delta: &run.difference[edge.writer] };
            let logits = model.rewired_logits(&group.clean, shape, Some((from, &run.stream[from])), &mut rewire)?;
            let patched = metric_rows(&logits, group, metric);
            *score += patched.iter().zip(&run.clean_metric).map(|(p, c)| p - c).sum::<f32>() / n as f32;
        }
    }
    Ok(scores)
}

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
        return Err(Error::Config("integrated gradients need at least one step".into()));
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
