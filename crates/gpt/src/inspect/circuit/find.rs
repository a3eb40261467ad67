//! The circuit view's answer: every edge scored three ways, how the fast scores agree with the
//! exact ones, and the circuits each way finds, scored by MIB's measures and, for a model built by
//! hand, against the circuit it was built with.

use super::agreement::Agreement;
use super::mib::MibScores;
use super::prune::{Evaluator, Found};
use super::request::CircuitRequest;
use super::scores;
use super::truth::AgainstTruth;
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
    /// MIB's scores of the ranking (none for greedy pruning, which is not one).
    pub mib: Option<MibScores>,
    /// How it did against the circuit the model was built with, if it was built by hand.
    pub truth: Option<AgainstTruth>,
}

impl Evaluator<'_> {
    /// The circuit `scores` rank, MIB's scores of the ranking, and both against `truth`.
    fn ranked(&self, method: &'static str, scores: &[f32], truth: Option<&[bool]>) -> Result<Named> {
        let found = self.by_ranking(scores)?;
        let truth = truth.map(|t| AgainstTruth::of(scores, &found.edges, t));
        Ok(Named { method, found, mib: Some(self.mib(scores)?), truth })
    }

    /// Greedy pruning from `exact`'s order; against `truth` its scores are its circuit (1 for an
    /// edge it keeps, 0 for one it drops), as a classifier of one threshold.
    fn pruned(&self, exact: &[f32], truth: Option<&[bool]>) -> Result<Named> {
        let found = self.greedy(exact)?;
        let truth = truth.map(|t| {
            let kept: Vec<f32> = (0..exact.len()).map(|e| f32::from(u8::from(found.edges.contains(&e)))).collect();
            AgainstTruth::of(&kept, &found.edges, t)
        });
        Ok(Named { method: "greedy", found, mib: None, truth })
    }
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
    /// The circuit the model was built with under this corruption, by edge name, if it was
    /// built by hand (each way's `truth` is scored against it).
    pub known: Option<Vec<String>>,
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
        let known = self.known_circuit(request.corruption).map(|k| k.edges.clone());
        let marked: Option<Vec<bool>> =
            known.as_ref().map(|k| graph.edges.iter().map(|e| k.contains(&e.name)).collect());
        let truth = marked.as_deref();
        let mut circuits = Vec::new();
        let mut agreement = Vec::new();
        if let Some(exact) = &exact {
            circuits.push(evaluator.ranked("exact", exact, truth)?);
            let top_k = circuits[0].found.edges.len().max(1);
            agreement.push(Agreement::of("eap", exact, &eap, top_k));
            agreement.push(Agreement::of("eap_ig", exact, &eap_ig, top_k));
        }
        circuits.push(evaluator.ranked("eap_ig", &eap_ig, truth)?);
        circuits.push(evaluator.ranked("eap", &eap, truth)?);
        if let Some(exact) = &exact {
            circuits.push(evaluator.pruned(exact, truth)?);
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
            known,
        })
    }
}
