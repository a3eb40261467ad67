//! What of an attribution graph matters to its output, as circuit-tracer's `graph.py` reckons it:
//! each node's influence on the logits (every path's product of normalised edge weights, summed),
//! pruning by node and then edge influence to the shares that carry 80% and 98% of it, and the
//! graph's replacement and completeness scores (Ameisen et al. 2025). Sums run in f64.

use super::AttributionGraph;
use serde::Serialize;

/// A pruned graph: the nodes and edges kept, and each node's cumulative influence (the share of
/// all influence held by the nodes at least as influential).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Pruned {
    pub nodes: Vec<bool>,
    /// (target, source, weight), by target then source.
    pub edges: Vec<(usize, usize, f32)>,
    pub cumulative_influence: Vec<f32>,
}

/// How much of the graph's influence on the logits runs through features rather than errors.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct GraphScores {
    /// Of the influence the tokens and errors have on the logits, the tokens' share.
    pub replacement: f32,
    /// Each node's share of inputs that are not errors, weighed by its influence on the logits.
    pub completeness: f32,
}

/// A matrix over every node (rows read, columns write), stored as an attribution graph's
/// adjacency is: rows only for features and logits.
struct Rows<'a> {
    graph: &'a AttributionGraph,
    values: Vec<f64>,
}

impl<'a> Rows<'a> {
    /// Each row of `values` (the adjacency's shape) in absolute value over its sum.
    fn normalised(graph: &'a AttributionGraph, values: impl Iterator<Item = f32>) -> Rows<'a> {
        let mut values: Vec<f64> = values.map(|v| v.abs() as f64).collect();
        for row in values.chunks_exact_mut(graph.sources()) {
            let total = row.iter().sum::<f64>().max(1e-10);
            row.iter_mut().for_each(|v| *v /= total);
        }
        Rows { graph, values }
    }

    /// The node read by each stored row.
    fn node(&self, row: usize) -> usize {
        let features = self.graph.features.len();
        if row < features {
            row
        } else {
            row - features + self.graph.sources()
        }
    }

    /// `x` (a weight per node) times the matrix.
    fn times(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.graph.nodes()];
        for (r, row) in self.values.chunks_exact(self.graph.sources()).enumerate() {
            let w = x[self.node(r)];
            if w != 0.0 {
                out.iter_mut().zip(row).for_each(|(o, &v)| *o += w * v);
            }
        }
        out
    }

    /// Each node's influence on the logits, weighed by `weights`: the sum of `weights` times the
    /// matrix's powers (the graph has no cycles, so they end).
    fn influence(&self, weights: &[f64]) -> Vec<f64> {
        let mut current = self.times(weights);
        let mut total = current.clone();
        while current.iter().any(|&v| v != 0.0) {
            current = self.times(&current);
            total.iter_mut().zip(&current).for_each(|(t, c)| *t += c);
        }
        total
    }
}

impl AttributionGraph {
    /// A weight per node: each logit's probability, 0 elsewhere.
    fn logit_weights(&self) -> Vec<f64> {
        let mut w = vec![0.0; self.nodes()];
        let start = self.sources();
        self.logits.iter().enumerate().for_each(|(i, l)| w[start + i] = l.probability as f64);
        w
    }

    /// Every node's influence on the logits (circuit-tracer's `compute_node_influence`).
    pub fn node_influence(&self) -> Vec<f64> {
        Rows::normalised(self, self.adjacency.iter().copied()).influence(&self.logit_weights())
    }

    /// The graph pruned to the nodes holding `node_threshold` of the influence on the logits and
    /// then the edges holding `edge_threshold` (circuit-tracer's `prune_graph`, 0.8 and 0.98).
    pub fn prune(&self, node_threshold: f32, edge_threshold: f32) -> Pruned {
        let (n, sources, features) = (self.nodes(), self.sources(), self.features.len());
        let weights = self.logit_weights();
        let influence = self.node_influence();
        let cut = threshold(&influence, node_threshold as f64);
        let kept_always = n - self.logits.len() - self.tokens.len();
        let mut nodes: Vec<bool> = (0..n).map(|i| i >= kept_always || influence[i] >= cut).collect();
        // The adjacency without the dropped nodes, then each edge's influence.
        let row_node = |r: usize| if r < features { r } else { r - features + sources };
        let pruned: Vec<f32> = self
            .adjacency
            .iter()
            .enumerate()
            .map(|(k, &v)| if nodes[row_node(k / sources)] && nodes[k % sources] { v } else { 0.0 })
            .collect();
        let rows = Rows::normalised(self, pruned.into_iter());
        let mut reach = rows.influence(&weights);
        reach.iter_mut().zip(&weights).for_each(|(r, w)| *r += w);
        let scores: Vec<f64> = rows.values.iter().enumerate().map(|(k, v)| v * reach[row_node(k / sources)]).collect();
        let edge_cut = threshold(&scores, edge_threshold as f64);
        let mut edges: Vec<bool> = scores.iter().map(|&s| s >= edge_cut).collect();
        // Drop features and errors nothing kept reads, and features that read nothing kept,
        // until none is left to drop.
        loop {
            for (k, e) in edges.iter_mut().enumerate() {
                *e &= nodes[row_node(k / sources)] && nodes[k % sources];
            }
            let mut read = vec![false; sources];
            let mut reads = vec![false; features];
            for (k, _) in edges.iter().enumerate().filter(|(_, &e)| e) {
                read[k % sources] = true;
                if k / sources < features {
                    reads[k / sources] = true;
                }
            }
            let before = nodes.clone();
            (0..kept_always).for_each(|i| nodes[i] &= read[i] && (i >= features || reads[i]));
            if nodes == before {
                break;
            }
        }
        let edges = edges
            .iter()
            .enumerate()
            .filter(|(_, &e)| e)
            .map(|(k, _)| (row_node(k / sources), k % sources, self.adjacency[k]))
            .collect();
        Pruned { nodes, edges, cumulative_influence: cumulative(&influence) }
    }

    /// The graph's replacement and completeness scores (circuit-tracer's `compute_graph_scores`).
    pub fn scores(&self) -> GraphScores {
        let weights = self.logit_weights();
        let rows = Rows::normalised(self, self.adjacency.iter().copied());
        let influence = rows.influence(&weights);
        let (errors, tokens) = (self.error_node(0, 0), self.token_node(0));
        let sum = |range: std::ops::Range<usize>| influence[range].iter().sum::<f64>();
        let (error, token) = (sum(errors..tokens), sum(tokens..tokens + self.tokens.len()));
        let mut non_error = vec![1.0; self.nodes()];
        for (r, row) in rows.values.chunks_exact(self.sources()).enumerate() {
            non_error[rows.node(r)] = 1.0 - row[errors..tokens].iter().sum::<f64>();
        }
        let output: Vec<f64> = influence.iter().zip(&weights).map(|(i, w)| i + w).collect();
        let completeness = non_error.iter().zip(&output).map(|(f, o)| f * o).sum::<f64>() / output.iter().sum::<f64>();
        GraphScores { replacement: (token / (token + error)) as f32, completeness: completeness as f32 }
    }
}

/// The score at which the highest scores, in turn, first reach `share` of their total
/// (circuit-tracer's `find_threshold`).
fn threshold(scores: &[f64], share: f64) -> f64 {
    let mut sorted = scores.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let total: f64 = sorted.iter().sum();
    let mut running = 0.0;
    for (i, &s) in sorted.iter().enumerate() {
        running += s;
        if running / total >= share {
            return sorted[i];
        }
    }
    sorted.last().copied().unwrap_or(0.0)
}

/// Each node's cumulative influence: the share of the total held by it and every node above it.
fn cumulative(influence: &[f64]) -> Vec<f32> {
    let mut order: Vec<usize> = (0..influence.len()).collect();
    order.sort_by(|&a, &b| influence[b].total_cmp(&influence[a]));
    let total: f64 = influence.iter().sum();
    let mut out = vec![0.0; influence.len()];
    let mut running = 0.0;
    for i in order {
        running += influence[i];
        out[i] = (running / total) as f32;
    }
    out
}
