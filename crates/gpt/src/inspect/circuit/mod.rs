//! The circuit behind an answer: every edge between the model's parts (`model/edge_graph.rs`, and
//! what a circuit reads off it: `graph.rs`) scored by patching it exactly
//! (`model/edge_patching.rs`, shared among workers as a job), by EAP and by EAP-IG (`scores.rs`),
//! on pairs of clean and corrupted prompts (`pairs.rs`); how far the fast scores rank the edges as
//! the exact ones do (`agreement.rs`); the fewest edges that keep 90% of the metric, by each
//! ranking and by greedy pruning (`prune.rs`); MIB's scores of each ranking (`mib.rs`) and, for a
//! model built by hand, each way against the circuit it was built with (`truth.rs`), gathered for
//! the view (`find.rs`); and the circuit recorded at evaluations while the model learns
//! (`timeline.rs`).

mod agreement;
mod find;
mod graph;
mod mib;
mod pairs;
mod prune;
pub mod request;
mod scores;
mod timeline;
mod truth;
mod view;

pub use crate::model::{Edge, EdgeGraph, Writer};
pub use agreement::Agreement;
pub use find::{Circuits, Named, PairText};
pub use mib::{MibCurve, MibScores, SHARES};
pub use prune::{Found, TARGET};
pub use request::{CircuitRequest, Corruption, Metric};
pub use truth::{auroc, AgainstTruth};
pub use view::{view, CircuitView};

use super::question::Pair;
use crate::error::{Error, Result};
use crate::model::Runs;
use crate::words::runs::bug;
use crate::work::edge_plan::EdgePlan;
use crate::Run;
use prune::Evaluator;
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
            Method::Exact => Ok(self.exact_scores(graph, runs, request.metric)?.0),
            Method::Eap => scores::attribution(model, graph, runs, request.metric, None),
            Method::EapIg => scores::attribution(model, graph, runs, request.metric, Some(request.ig_steps)),
        })
    }

    /// The share of the metric the circuit of `edges` (by their names in the edge graph) keeps
    /// on `request`'s pairs, every other edge patched from the corrupted prompts.
    pub fn faithfulness(&self, request: &CircuitRequest, edges: &[&str]) -> Result<f32> {
        self.with_runs(request, ("", ""), |graph, _, runs| {
            if let Some(name) = edges.iter().find(|&&n| !graph.edges.iter().any(|e| e.name == n)) {
                return Err(Error::Data(bug(format!("{name} is no edge of the model's graph"))));
            }
            let kept: Vec<bool> = graph.edges.iter().map(|e| edges.contains(&e.name.as_str())).collect();
            Evaluator::new(self.model(), graph, runs, request.metric)?.faithfulness(&kept)
        })
    }

    /// Exact patching's plan for `request`'s pairs (or the typed pair), for the page's workers to
    /// share (see `train/edges.rs`); none where the model is too large to patch every edge.
    pub(crate) fn circuit_plan(&self, request: &CircuitRequest, typed: (&str, &str)) -> Result<Option<EdgePlan>> {
        let pairs = self.circuit_pairs(request.corruption, request.pairs, typed)?;
        let graph = EdgeGraph::of(self.model());
        let plan = EdgePlan { edges: graph.edges.len(), metric: request.metric, groups: pairs::groups(&pairs) };
        Ok((exact_cost(&graph, self.model().config(), &pairs) <= EXACT_BUDGET).then_some(plan))
    }

    /// Every edge patched exactly on `runs`' pairs: as a job shared with the page's workers left
    /// them (and what that took), else now on the trainer's threads.
    fn exact_scores(&self, graph: &EdgeGraph, runs: &[Runs], metric: Metric) -> Result<(Vec<f32>, Option<Shared>)> {
        let groups = runs.iter().map(|r| r.group.clone()).collect();
        let plan = EdgePlan { edges: graph.edges.len(), metric, groups };
        let shared = self.trainer.shared_edges(&plan).map(|s| Shared { ms: s.ms, workers: s.workers });
        Ok((self.trainer.edge_scores(&plan)?, shared))
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
        let graph = EdgeGraph::of(model);
        let groups = pairs::groups(pairs);
        let runs: Vec<Runs> =
            groups.iter().map(|g| Runs::new(model, &graph, g, request.metric)).collect::<Result<_>>()?;
        then(&graph, pairs, &runs)
    }
}

/// Exact patching shared as a job among the page's workers: how long it took, and on how many.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Shared {
    pub ms: f64,
    pub workers: usize,
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
