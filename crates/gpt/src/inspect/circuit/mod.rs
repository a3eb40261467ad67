//! The circuit behind an answer: every edge between the model's parts (`graph.rs`) scored by
//! patching it exactly, by EAP and by EAP-IG (`scores.rs`), on pairs of clean and corrupted
//! prompts (`pairs.rs`); how far the fast scores rank the edges as the exact ones do
//! (`agreement.rs`); the fewest edges that keep 90% of the metric, by each ranking and by greedy
//! pruning (`prune.rs`), gathered for the view (`find.rs`); and the circuit recorded at
//! evaluations while the model learns (`timeline.rs`).

mod agreement;
mod find;
mod graph;
mod pairs;
mod prune;
pub mod request;
mod scores;
mod timeline;
mod view;

pub use agreement::Agreement;
pub use find::{Circuits, Named, PairText};
pub use graph::{Edge, EdgeGraph, Writer};
pub use prune::{Found, TARGET};
pub use request::{CircuitRequest, Corruption, Metric};
pub use view::{view, CircuitView};

use super::question::Pair;
use crate::error::Result;
use crate::Run;
use scores::Runs;
use serde::{Deserialize, Serialize};

/// The most multiply-adds exact patching may take (every edge a pass from its reader's block on):
/// about 7 seconds natively on one core here (nano-cpu's 8.5e10 took 4.7 s), 8 in the page. Past
/// it the view gives EAP and EAP-IG alone.
const EXACT_BUDGET: f64 = 1.2e11;

/// A way to score the edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Exact,
    Eap,
    EapIg,
}

impl Run {
    /// Every edge's score by `method` alone, on `request`'s pairs (or the typed pair): what a
    /// benchmark times.
    pub fn edge_scores(&self, request: &CircuitRequest, typed: (&str, &str), method: Method) -> Result<Vec<f32>> {
        let model = self.model();
        self.with_runs(request, typed, |graph, _, runs| match method {
            Method::Exact => scores::exact(model, graph, runs, request.metric),
            Method::Eap => scores::attribution(model, graph, runs, request.metric, None),
            Method::EapIg => scores::attribution(model, graph, runs, request.metric, Some(request.ig_steps)),
        })
    }

    /// The model's graph and `request`'s pairs (or the typed pair), run clean and corrupted,
    /// handed to `then`.
    fn with_runs<T>(
        &self,
        request: &CircuitRequest,
        typed: (&str, &str),
        then: impl FnOnce(&EdgeGraph, &[Pair], &[Runs]) -> Result<T>,
    ) -> Result<T> {
        let pairs = self.circuit_pairs(request.corruption, request.pairs, typed)?;
        self.with_pairs_run(request, &pairs, then)
    }

    /// The model's graph and `pairs`, run clean and corrupted under `request`'s metric, handed
    /// to `then`.
    fn with_pairs_run<T>(
        &self,
        request: &CircuitRequest,
        pairs: &[Pair],
        then: impl FnOnce(&EdgeGraph, &[Pair], &[Runs]) -> Result<T>,
    ) -> Result<T> {
        let model = self.model();
        let cfg = model.config();
        let graph = EdgeGraph::new(cfg.n_layer, cfg.n_head, cfg.n_embd);
        let groups = pairs::groups(pairs);
        let runs: Vec<Runs> =
            groups.iter().map(|g| Runs::new(model, &graph, g, request.metric)).collect::<Result<_>>()?;
        then(&graph, pairs, &runs)
    }
}

/// Multiply-adds exact patching takes: each edge a pass over the pairs from its reader's block
/// (12 C² a position a block, and the unembedding).
fn exact_cost(graph: &EdgeGraph, cfg: &crate::GPTConfig, pairs: &[Pair]) -> f64 {
    let tokens: usize = pairs.iter().map(|p| p.clean.len()).sum();
    let c = cfg.n_embd as f64;
    let blocks: usize = graph.edges.iter().map(|e| graph.n_layer - graph.layer_of(e)).sum();
    tokens as f64 * (blocks as f64 * 12.0 * c * c + graph.edges.len() as f64 * c * cfg.vocab_size as f64)
}

#[cfg(test)]
mod tests;
