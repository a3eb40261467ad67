//! Exact edge patching: each edge of the model's graph (`edge_graph.rs`) patched alone on pairs of
//! clean and corrupted prompts. The reader sees the clean stream plus the writer's corrupted output
//! minus its clean one, everything else as the pass makes it, and the pass runs on from the
//! reader's block (path patching); the score is the metric's mean change over the pairs. A job's
//! units (`work/edge_plan.rs`), so the trainer's threads and the page's helpers share the edges.

use super::edge_graph::{EdgeGraph, Writer};
use super::extras::Trace;
use super::gpt::GPT;
use super::rewire::{Reader, Rewire};
use crate::error::{Error, Result};
use crate::words::runs::bug;
use crate::work::edge_plan::{EdgePlan, Group, Metric};
use std::ops::Range;

/// A group's clean and corrupted runs: what every edge's score reads.
pub struct Runs<'g> {
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
pub fn writer_outputs(model: &GPT, graph: &EdgeGraph, trace: &Trace) -> Vec<Vec<f32>> {
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
pub fn metric_rows(logits: &[f32], group: &Group, metric: Metric) -> Vec<f32> {
    let row = logits.len() / group.rows();
    let v = row / group.t;
    (0..group.rows())
        .map(|r| metric.of(&logits[(r + 1) * row - v..(r + 1) * row], group.answers[r], group.wrongs[r]))
        .collect()
}

impl<'g> Runs<'g> {
    pub fn new(model: &GPT, graph: &EdgeGraph, group: &'g Group, metric: Metric) -> Result<Runs<'g>> {
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

/// Edges `edges` of the graph, each patched on its own: the mean change of the metric over all
/// pairs.
pub fn exact(model: &GPT, graph: &EdgeGraph, runs: &[Runs], metric: Metric, edges: Range<usize>) -> Result<Vec<f32>> {
    let n: usize = runs.iter().map(|r| r.group.rows()).sum();
    let mut scores = vec![0.0; edges.len()];
    for run in runs {
        let (group, shape) = (run.group, (run.group.rows(), run.group.t));
        for (score, edge) in scores.iter_mut().zip(&graph.edges[edges.clone()]) {
            let from = graph.layer_of(edge);
            let mut rewire = OneEdge { reader: graph.readers[edge.reader], delta: &run.difference[edge.writer] };
            let logits = model.rewired_logits(&group.clean, shape, Some((from, &run.stream[from])), &mut rewire)?;
            let patched = metric_rows(&logits, group, metric);
            *score += patched.iter().zip(&run.clean_metric).map(|(p, c)| p - c).sum::<f32>() / n as f32;
        }
    }
    Ok(scores)
}

/// Exact patching's units (see `train/edges.rs`): edges `edges` of `model`'s graph, each patched
/// alone on `plan`'s pairs.
pub fn plan_scores(model: &GPT, plan: &EdgePlan, edges: Range<usize>) -> Result<Vec<f32>> {
    let graph = EdgeGraph::of(model);
    if graph.edges.len() != plan.edges || edges.end > plan.edges {
        return Err(Error::Data(bug(format!(
            "the plan patches {} edges, and this model's graph has {}",
            plan.edges,
            graph.edges.len()
        ))));
    }
    let runs: Vec<Runs> =
        plan.groups.iter().map(|g| Runs::new(model, &graph, g, plan.metric)).collect::<Result<_>>()?;
    exact(model, &graph, &runs, plan.metric, edges)
}
