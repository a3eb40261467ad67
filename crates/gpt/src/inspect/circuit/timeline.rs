//! The circuit while the model learns: at evaluations, paced to cost at most 1/[`SHARE`] of the
//! training since the last record (and always at the end), every edge scored (exactly where the
//! model is small enough, else by EAP-IG) under the swap (or, where nothing repeats, a changed
//! symbol), and the circuit that ranking finds, kept in the run's history; and the step it formed.

use super::prune::Evaluator;
use super::request::{CircuitRequest, Corruption};
use super::scores;
use super::{exact_cost, EdgeGraph, EXACT_BUDGET};
use crate::error::Result;
use crate::inspect::question::Pair;
use crate::inspect::records::CircuitPoint;
use crate::model::Runs;
use crate::Run;

/// The timeline costs at most a twentieth of the training.
const SHARE: usize = 20;
/// Passes finding the fewest edges takes, about: the ranking's curve and the halving after it.
const SEARCH_PASSES: usize = 25;
/// A circuit has formed when the model answers this share of the pairs right on both sides (the
/// clean answer on the clean prompt, the corrupted one on the corrupted prompt) and a circuit keeps
/// 90% of the difference.
const FORMED_SHARE: f32 = 0.9;
/// Pairs each record averages over: a quarter of the view's, so that records come four times as
/// often (every 125 steps or so on the induction preset, whose induction head forms at 300-600).
const PAIRS: usize = 8;
/// Small passes over a few pairs do less per token than training's: about twice, measured on the
/// induction preset (four records of 16 pairs took 1.5 s of its 35 s, natively).
const OVERHEAD: usize = 2;

impl Run {
    /// At an evaluation: the circuit, into the history, when due.
    pub(crate) fn record_circuit(&mut self) -> Result<()> {
        if self.model().config().n_layer == 0 {
            return Ok(());
        }
        let last = self.history().records::<CircuitPoint>().last().map(|p| p.step);
        if last == Some(self.step_count()) {
            return Ok(()); // this step's circuit is recorded already
        }
        let last = last.unwrap_or(0);
        let request = self.timeline_request();
        // A model too small to propose pairs has no timeline.
        let Ok(pairs) = self.circuit_pairs(request.corruption, request.pairs, ("", "")) else { return Ok(()) };
        if !self.record_due(last, self.timeline_cost(&pairs, &request), SHARE) {
            return Ok(());
        }
        let point = self
            .with_pairs_run(&request, &pairs, |graph, pairs, runs| self.circuit_point(&request, graph, pairs, runs))?;
        self.trainer.history_mut().record(&point);
        Ok(())
    }

    /// The swap where the run's sequences repeat (it shows where heads look), else a changed symbol.
    fn timeline_request(&self) -> CircuitRequest {
        let swaps = self.circuit_pairs(Corruption::Swap, 1, ("", "")).is_ok();
        let corruption = if swaps { Corruption::Swap } else { Corruption::Symbol };
        CircuitRequest { corruption, pairs: PAIRS, ..CircuitRequest::default() }
    }

    /// What a record costs, in tokens through the whole model.
    fn timeline_cost(&self, pairs: &[Pair], request: &CircuitRequest) -> usize {
        let cfg = self.model().config();
        let graph = EdgeGraph::of(self.model());
        let tokens: usize = pairs.iter().map(|p| p.clean.len()).sum();
        let c = cfg.n_embd as f64;
        let per_token = cfg.n_layer as f64 * 12.0 * c * c + c * cfg.vocab_size as f64;
        let exact = exact_cost(&graph, cfg, pairs);
        let scoring = if exact <= EXACT_BUDGET { exact / per_token } else { 3.0 * (request.ig_steps * tokens) as f64 };
        OVERHEAD * (scoring as usize + SEARCH_PASSES * tokens)
    }

    fn circuit_point(
        &self,
        request: &CircuitRequest,
        graph: &EdgeGraph,
        pairs: &[Pair],
        runs: &[Runs],
    ) -> Result<CircuitPoint> {
        let model = self.model();
        let (method, scores) = if exact_cost(graph, model.config(), pairs) <= EXACT_BUDGET {
            ("exact", self.exact_scores(graph, runs, request.metric)?.0)
        } else {
            ("eap_ig", scores::attribution(model, graph, runs, request.metric, Some(request.ig_steps))?)
        };
        let (clean, corrupted) = Evaluator::means(runs);
        let both =
            |r: &Runs| r.clean_metric.iter().zip(&r.corrupted_metric).filter(|(c, k)| **c > 0.0 && **k < 0.0).count();
        let answered = runs.iter().map(both).sum::<usize>() as f32 / pairs.len() as f32;
        let mut point = CircuitPoint {
            step: self.step_count(),
            method: method.into(),
            corruption: request.corruption,
            pairs: pairs.len(),
            answered,
            clean,
            corrupted,
            scores,
            edges: Vec::new(),
            faithfulness: 0.0,
            reached: false,
        };
        // While the corruption moves nothing the metric reads there is no circuit to find yet.
        if let Ok(evaluator) = Evaluator::new(model, graph, runs, request.metric) {
            let found = evaluator.by_ranking(&point.scores)?;
            (point.edges, point.faithfulness, point.reached) = (found.edges, found.faithfulness, found.reached);
        }
        Ok(point)
    }

    /// The first recorded step at which the circuit had formed: the model answered
    /// [`FORMED_SHARE`] of the pairs right on both sides, and a circuit kept 90% of the difference.
    pub fn circuit_formed(&self) -> Option<usize> {
        let formed = |p: &CircuitPoint| p.reached && p.answered >= FORMED_SHARE;
        self.history().records::<CircuitPoint>().into_iter().find(formed).map(|p| p.step)
    }
}
