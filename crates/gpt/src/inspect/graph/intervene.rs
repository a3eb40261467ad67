//! Testing an attribution graph: features knocked out or steered (their activation scaled), and
//! each explained logit's change as the graph predicts it (through its edges, linearly, every
//! other feature staying active) beside the change in the local replacement model (the prompt's
//! errors held, attention and norms free), as circuit-tracer's interventions compare them.

use super::AttributionGraph;
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::sae::{Scaled, Transcoders};
use crate::words::views;
use crate::workspace::Workspace;
use serde::Serialize;

/// One explained logit's change (less the change of the mean logit, as the graph's logit nodes
/// are), predicted and real, and its probability after.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LogitEffect {
    pub token: usize,
    pub predicted: f32,
    pub real: f32,
    pub probability: f32,
}

impl AttributionGraph {
    /// Each logit's change, as the graph predicts it, when each of `scaled`'s feature nodes has
    /// its activation times its factor.
    pub fn predicted_effects(&self, scaled: &[(usize, f32)]) -> Vec<f32> {
        let n = self.features.len();
        let mut change = vec![0.0f64; n];
        for &(node, factor) in scaled {
            change[node] = (factor as f64 - 1.0) * self.features[node].activation as f64;
        }
        // A feature's edge is its whole write, activation times direction: per unit of activation
        // it is the edge over the activation. Features read only earlier layers: in node order,
        // each reads changes already final.
        let through = |target: usize, change: &[f64]| -> f64 {
            change
                .iter()
                .enumerate()
                .filter(|(_, &c)| c != 0.0)
                .map(|(u, c)| self.edge(target, u) as f64 / self.features[u].activation as f64 * c)
                .sum()
        };
        for t in 0..n {
            if !scaled.iter().any(|&(node, _)| node == t) {
                change[t] = through(t, &change);
            }
        }
        (0..self.logits.len()).map(|i| through(self.sources() + i, &change) as f32).collect()
    }
}

/// The graph's logits' changes when `scaled`'s feature nodes (node, factor) are scaled: predicted
/// by the graph, and computed by `model` with `transcoders` and the graph's errors in its MLPs.
pub fn intervene(
    model: &GPT,
    transcoders: &Transcoders,
    graph: &AttributionGraph,
    scaled: &[(usize, f32)],
) -> Result<Vec<LogitEffect>> {
    let mut edits: Vec<Scaled> = Vec::with_capacity(scaled.len());
    for &(node, factor) in scaled {
        let f = graph.features.get(node).ok_or_else(|| Error::Data(views::no_node(node, graph.features.len())))?;
        if !factor.is_finite() {
            return Err(Error::Data(views::scale_factor(factor)));
        }
        edits.push((f.layer, f.position, f.feature, factor));
    }
    let (t, v) = (graph.tokens.len(), model.config().vocab_size);
    let ws = Workspace::default();
    let last = |edits: &[Scaled]| -> Result<Vec<f32>> {
        let mut replacement = transcoders.local_replacement(&ws, &graph.errors, edits);
        Ok(model.rewired_logits(&graph.tokens, (1, t), None, &mut replacement)?[(t - 1) * v..].to_vec())
    };
    let (before, after) = (last(&[])?, last(&edits)?);
    let change: Vec<f32> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    let mean = change.iter().sum::<f32>() / v as f32;
    let mut probabilities = after;
    crate::ops::softmax_in_place(&mut probabilities);
    let predicted = graph.predicted_effects(scaled);
    Ok(graph
        .logits
        .iter()
        .zip(predicted)
        .map(|(l, predicted)| LogitEffect {
            token: l.token,
            predicted,
            real: change[l.token] - mean,
            probability: probabilities[l.token],
        })
        .collect())
}
