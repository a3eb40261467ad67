//! The circuit view's answer: every edge scored three ways, how the fast scores agree with the
//! exact ones, and the circuits each way finds.

use super::agreement::Agreement;
use super::prune::{Evaluator, Found};
use super::request::CircuitRequest;
use super::scores;
use super::{Shared, EXACT_BUDGET};
use crate::error::Result;
use crate::inspect::patching::PairIds;
use crate::inspect::question::Pair;
use crate::model::{EdgeGraph, Runs};
use crate::words::{views, Words};
use crate::Run;
use serde::Serialize;

/// One pair as a person reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct PairText {
    pub clean: String,
    pub corrupted: String,
    pub answer: String,
    pub wrong: String,
}

/// A circuit, and the way it was found: `exact`, `eap`, `eap_ig` (a ranking) or `greedy`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Named {
    pub method: &'static str,
    #[serde(flatten)]
    pub found: Found,
}

/// The circuit view: the graph, each edge's three scores, and the circuits they find.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Circuits {
    pub graph: EdgeGraph,
    pub request: CircuitRequest,
    /// Pairs averaged over, and the first few as text.
    pub pairs: usize,
    pub examples: Vec<PairText>,
    /// Every pair's token ids, for another implementation to check against.
    pub ids: Vec<PairIds>,
    /// The metric's mean over the pairs, clean and corrupted.
    pub clean: f32,
    pub corrupted: f32,
    /// Each edge's score (the metric's mean change when it alone is patched), in the graph's order;
    /// none where the model is too large to patch every edge (see `note`).
    pub exact: Option<Vec<f32>>,
    /// How long exact patching took shared among the page's workers, and on how many (none where
    /// one worker patched the edges on its own, as it does while the model trains).
    pub shared: Option<Shared>,
    pub eap: Vec<f32>,
    pub eap_ig: Vec<f32>,
    pub agreement: Vec<Agreement>,
    /// The fewest edges that keep [`TARGET`], found each way.
    pub circuits: Vec<Named>,
    /// Why exact patching was left out, when it was.
    pub note: Option<Words>,
    /// The first circuit (by exact ranking where there is one) with every edge's score (exact
    /// where there are) as EAP-IG's `Graph` JSON, for its code to read and draw.
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, any>"))]
    pub eap_ig_graph: serde_json::Value,
}

/// EAP-IG's `Graph` JSON of a circuit (what `eap.graph.Graph.from_json` reads): every edge's
/// score and whether the circuit keeps it.
fn eap_ig_graph(graph: &EdgeGraph, scores: &[f32], circuit: &[usize]) -> serde_json::Value {
    let mut kept = vec![false; graph.edges.len()];
    circuit.iter().for_each(|&e| kept[e] = true);
    graph.eap_ig_json(scores, &kept)
}

impl Run {
    /// The circuit behind the answers of `request`'s pairs (or the typed pair).
    pub fn circuits(&self, request: &CircuitRequest, typed: (&str, &str)) -> Result<Circuits> {
        self.with_runs(request, typed, |graph, pairs, runs| self.found(request, graph, pairs, runs))
    }

    fn found(&self, request: &CircuitRequest, graph: &EdgeGraph, pairs: &[Pair], runs: &[Runs]) -> Result<Circuits> {
        let model = self.model();
        let evaluator = Evaluator::new(model, graph, runs, request.metric)?;
        let eap = scores::attribution(model, graph, runs, request.metric, None)?;
        let eap_ig = scores::attribution(model, graph, runs, request.metric, Some(request.ig_steps))?;
        let cost = super::exact_cost(graph, model.config(), pairs);
        let (exact, shared, note) = if cost <= EXACT_BUDGET {
            let (exact, shared) = self.exact_scores(graph, runs, request.metric)?;
            (Some(exact), shared, None)
        } else {
            let billions = |n: f64| (n / 1e9).round();
            let note = views::exact_too_costly(graph.edges.len(), billions(cost), billions(EXACT_BUDGET));
            (None, None, Some(note))
        };
        let mut circuits = Vec::new();
        let mut agreement = Vec::new();
        if let Some(exact) = &exact {
            circuits.push(Named { method: "exact", found: evaluator.by_ranking(exact)? });
            let top_k = circuits[0].found.edges.len().max(1);
            agreement.push(Agreement::of("eap", exact, &eap, top_k));
            agreement.push(Agreement::of("eap_ig", exact, &eap_ig, top_k));
        }
        circuits.push(Named { method: "eap_ig", found: evaluator.by_ranking(&eap_ig)? });
        circuits.push(Named { method: "eap", found: evaluator.by_ranking(&eap)? });
        if let Some(exact) = &exact {
            circuits.push(Named { method: "greedy", found: evaluator.greedy(exact)? });
        }
        let (clean, corrupted) = (evaluator.clean, evaluator.corrupted);
        let text = |t: usize| self.tokenizer().token_text(t as u32);
        let examples = pairs
            .iter()
            .take(4)
            .map(|p| PairText {
                clean: p.clean_text.clone(),
                corrupted: p.corrupted_text.clone(),
                answer: text(p.answer),
                wrong: text(p.wrong),
            })
            .collect();
        let ids = pairs
            .iter()
            .map(|p| PairIds {
                clean: p.clean.clone(),
                corrupted: p.corrupted.clone(),
                answer: p.answer,
                wrong: p.wrong,
            })
            .collect();
        let first = circuits.first().map_or(&[][..], |n| &n.found.edges[..]);
        let eap_ig_graph = eap_ig_graph(graph, exact.as_ref().unwrap_or(&eap_ig), first);
        Ok(Circuits {
            graph: graph.clone(),
            request: request.clone(),
            pairs: pairs.len(),
            ids,
            examples,
            clean,
            corrupted,
            exact,
            shared,
            eap,
            eap_ig,
            agreement,
            circuits,
            note,
            eap_ig_graph,
        })
    }
}
