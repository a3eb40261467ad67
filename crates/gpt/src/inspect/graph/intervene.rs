//! Testing an attribution graph: features knocked out or steered (their activation scaled), and
//! each explained logit's change four ways, as circuit-tracer's interventions compare them: as
//! the graph predicts it (through its edges, linearly, every other feature staying active); in the
//! local replacement model (the transcoders with the prompt's errors held, attention and norms
//! free); and in the model itself, its own MLPs running, each scaled feature's change written by
//! its decoder at its MLP's output (circuit-tracer's `feature_intervention`), with attention frozen
//! at the prompt's patterns (its default) or free.

use super::AttributionGraph;
use crate::error::{Error, Result};
use crate::model::{Reader, Rewire, GPT};
use crate::sae::{Scaled, Transcoders};
use crate::words::views;
use crate::workspace::Workspace;
use serde::Serialize;

/// One explained logit's change (less the change of the mean logit, as the graph's logit nodes
/// are) when the features are scaled, each way it is computed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LogitEffect {
    pub token: usize,
    /// As the graph predicts it.
    pub predicted: f32,
    /// In the local replacement model: every MLP its transcoder plus the prompt's error.
    pub replacement: f32,
    /// In the model, attention frozen at the prompt's patterns (circuit-tracer's default).
    pub frozen_attention: f32,
    /// In the model, attention free: what the model itself does.
    pub free_attention: f32,
    /// Its probability after, in the model with attention free.
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
/// by the graph, and computed in the local replacement model and in the model (see the module).
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
    let last = |rewire: &mut dyn Rewire| -> Result<Vec<f32>> {
        Ok(model.rewired_logits(&graph.tokens, (1, t), None, rewire)?[(t - 1) * v..].to_vec())
    };
    let replaced = |edits: &[Scaled]| last(&mut transcoders.local_replacement(&ws, &graph.errors, edits));
    let replacement = change(&replaced(&[])?, &replaced(&edits)?);
    // The values the scaled features are set to: their activation on the prompt times the factor.
    let set: Vec<Set> = scaled
        .iter()
        .zip(&edits)
        .map(|(&(node, factor), &(layer, position, feature, _))| Set {
            layer,
            position,
            feature,
            value: graph.features[node].activation * factor,
        })
        .collect();
    let before = model.logits(&graph.tokens, 1, t)?.as_slice().expect("standard layout")[(t - 1) * v..].to_vec();
    let patterns = model.hooked(&graph.tokens, None)?.pattern;
    let mut frozen = FeatureIntervention { transcoders, ws: &ws, set: &set, patterns: Some(&patterns) };
    let frozen_attention = change(&before, &last(&mut frozen)?);
    let mut free = FeatureIntervention { transcoders, ws: &ws, set: &set, patterns: None };
    let mut probabilities = last(&mut free)?;
    let free_attention = change(&before, &probabilities);
    crate::ops::softmax_in_place(&mut probabilities);
    let predicted = graph.predicted_effects(scaled);
    Ok(graph
        .logits
        .iter()
        .zip(predicted)
        .map(|(l, predicted)| LogitEffect {
            token: l.token,
            predicted,
            replacement: replacement[l.token],
            frozen_attention: frozen_attention[l.token],
            free_attention: free_attention[l.token],
            probability: probabilities[l.token],
        })
        .collect())
}

/// Each logit's change from `before` to `after`, less the change of their mean.
fn change(before: &[f32], after: &[f32]) -> Vec<f32> {
    let change: Vec<f32> = after.iter().zip(before).map(|(a, b)| a - b).collect();
    let mean = change.iter().sum::<f32>() / change.len() as f32;
    change.into_iter().map(|c| c - mean).collect()
}

/// A feature set to an activation at one position of the prompt.
struct Set {
    layer: usize,
    position: usize,
    feature: usize,
    value: f32,
}

/// The model with features set (circuit-tracer's `feature_intervention`): its own MLPs run, and at
/// each set feature's MLP output its decoder row times the difference between the value it is set
/// to and its activation in this pass (which earlier changes may have moved) is added; attention
/// is frozen at `patterns` (all layers' (1, nh, T, T), one after another) when given.
struct FeatureIntervention<'a> {
    transcoders: &'a Transcoders,
    ws: &'a Workspace,
    set: &'a [Set],
    patterns: Option<&'a [f32]>,
}

impl Rewire for FeatureIntervention<'_> {
    fn delta(&mut self, _: Reader) -> Option<Vec<f32>> {
        None
    }

    fn pattern(&mut self, layer: usize) -> Option<Vec<f32>> {
        let all = self.patterns?;
        let each = all.len() / self.transcoders.layers();
        Some(all[layer * each..(layer + 1) * each].to_vec())
    }

    fn mlp_added(&mut self, layer: usize, input: &[f32]) -> Option<Vec<f32>> {
        let here: Vec<&Set> = self.set.iter().filter(|s| s.layer == layer).collect();
        if here.is_empty() {
            return None;
        }
        let transcoder = self.transcoders.layer(layer);
        let codes = transcoder.encode(self.ws, input);
        let c = transcoder.d_in();
        let mut added = vec![0.0; input.len()];
        for s in here {
            let now = codes.row(s.position).find(|&(j, _)| j == s.feature).map_or(0.0, |(_, a)| a);
            let row = &mut added[s.position * c..(s.position + 1) * c];
            row.iter_mut().zip(transcoder.direction(s.feature)).for_each(|(a, d)| *a += (s.value - now) * d);
        }
        Some(added)
    }
}
