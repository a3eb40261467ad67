//! The circuit behind an answer: every edge between the model's parts (`graph.rs`) scored by
//! patching it exactly, by EAP and by EAP-IG (`scores.rs`), on pairs of clean and corrupted
//! prompts (`pairs.rs`); how far the fast scores rank the edges as the exact ones do; and the
//! fewest edges that keep 90% of the metric, by each ranking and by greedy pruning (`prune.rs`).

mod graph;
mod pairs;
mod prune;
pub mod request;
mod scores;

pub use graph::{Edge, EdgeGraph, Writer};
pub use prune::{Found, TARGET};
pub use request::{CircuitRequest, Corruption, Metric};

use super::look::{value, Look};
use super::patching::PairIds;
use crate::error::Result;
use crate::Run;
use prune::Evaluator;
use scores::Runs;
use serde::{Deserialize, Serialize};

/// The most multiply-adds exact patching may take (every edge a pass from its reader's block on):
/// about 10 seconds natively on a laptop's core. Past it the view gives EAP and EAP-IG alone.
const EXACT_BUDGET: f64 = 1.2e11;

/// One pair as a person reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct PairText {
    pub clean: String,
    pub corrupted: String,
    pub answer: String,
    pub wrong: String,
}

/// How a fast score ranks the edges against the exact one.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Agreement {
    /// `eap` or `eap_ig`.
    pub method: &'static str,
    /// Spearman's rank correlation of the scores with the exact ones.
    pub spearman: f32,
    /// Of the `top_k` edges the exact scores rank highest (by size), how many this one does too.
    pub top_k: usize,
    pub overlap: usize,
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
    pub eap: Vec<f32>,
    pub eap_ig: Vec<f32>,
    pub agreement: Vec<Agreement>,
    /// The fewest edges that keep [`TARGET`], found each way.
    pub circuits: Vec<Named>,
    /// Why exact patching was left out, when it was.
    pub note: Option<String>,
}

impl Circuits {
    /// EAP-IG's `Graph` JSON of the first circuit found (by exact ranking where there is one):
    /// what `eap.graph.Graph.from_json` reads. Scores are exact ones where there are.
    pub fn eap_ig_json(&self) -> serde_json::Value {
        let scores = self.exact.as_ref().unwrap_or(&self.eap_ig);
        let mut kept = vec![false; self.graph.edges.len()];
        if let Some(first) = self.circuits.first() {
            first.found.edges.iter().for_each(|&e| kept[e] = true);
        }
        self.graph.eap_ig_json(scores, &kept)
    }
}

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
        let cfg = model.config();
        let graph = EdgeGraph::new(cfg.n_layer, cfg.n_head, cfg.n_embd);
        let groups = pairs::groups(&self.circuit_pairs(request.corruption, request.pairs, typed)?);
        let runs: Vec<Runs> =
            groups.iter().map(|g| Runs::new(model, &graph, g, request.metric)).collect::<Result<_>>()?;
        match method {
            Method::Exact => scores::exact(model, &graph, &runs, request.metric),
            Method::Eap => scores::attribution(model, &graph, &runs, request.metric, None),
            Method::EapIg => scores::attribution(model, &graph, &runs, request.metric, Some(request.ig_steps)),
        }
    }

    /// The circuit behind the answers of `request`'s pairs (or the typed pair).
    pub fn circuits(&self, request: &CircuitRequest, typed: (&str, &str)) -> Result<Circuits> {
        let model = self.model();
        let cfg = model.config();
        let graph = EdgeGraph::new(cfg.n_layer, cfg.n_head, cfg.n_embd);
        let pairs = self.circuit_pairs(request.corruption, request.pairs, typed)?;
        let groups = pairs::groups(&pairs);
        let runs: Vec<Runs> =
            groups.iter().map(|g| Runs::new(model, &graph, g, request.metric)).collect::<Result<_>>()?;
        let evaluator = Evaluator::new(model, &graph, &runs, request.metric)?;
        let eap = scores::attribution(model, &graph, &runs, request.metric, None)?;
        let eap_ig = scores::attribution(model, &graph, &runs, request.metric, Some(request.ig_steps))?;
        let cost = exact_cost(&graph, cfg, &pairs);
        let (exact, note) = if cost <= EXACT_BUDGET {
            (Some(scores::exact(model, &graph, &runs, request.metric)?), None)
        } else {
            let note = format!(
                "Patching each of the {} edges exactly would take about {:.0} billion multiply-adds, past the {:.0} \
                 this page spends on it: EAP-IG's scores stand in, and the circuits come from its ranking",
                graph.edges.len(),
                cost / 1e9,
                EXACT_BUDGET / 1e9
            );
            (None, Some(note))
        };
        let mut circuits = Vec::new();
        let mut agreement = Vec::new();
        if let Some(exact) = &exact {
            circuits.push(Named { method: "exact", found: evaluator.by_ranking(exact)? });
            let top_k = circuits[0].found.edges.len().max(1);
            for (method, scores) in [("eap", &eap), ("eap_ig", &eap_ig)] {
                let spearman = spearman(exact, scores);
                agreement.push(Agreement { method, spearman, top_k, overlap: overlap(exact, scores, top_k) });
            }
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
        Ok(Circuits {
            graph,
            request: request.clone(),
            pairs: pairs.len(),
            ids,
            examples,
            clean,
            corrupted,
            exact,
            eap,
            eap_ig,
            agreement,
            circuits,
            note,
        })
    }
}

/// Multiply-adds exact patching takes: each edge a pass over the pairs from its reader's block
/// (12 C² a position a block, and the unembedding).
fn exact_cost(graph: &EdgeGraph, cfg: &crate::GPTConfig, pairs: &[super::question::Pair]) -> f64 {
    let tokens: usize = pairs.iter().map(|p| p.clean.len()).sum();
    let c = cfg.n_embd as f64;
    let blocks: usize = graph.edges.iter().map(|e| graph.n_layer - graph.layer_of(e)).sum();
    tokens as f64 * (blocks as f64 * 12.0 * c * c + graph.edges.len() as f64 * c * cfg.vocab_size as f64)
}

/// Ranks from 1 (ties share their mean rank).
fn ranks(xs: &[f32]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            ranks[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rank correlation: Pearson's on the ranks.
pub fn spearman(a: &[f32], b: &[f32]) -> f32 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let (va, vb): (f64, f64) = (ra.iter().map(|x| (x - ma).powi(2)).sum(), rb.iter().map(|y| (y - mb).powi(2)).sum());
    if va == 0.0 || vb == 0.0 {
        return 0.0;
    }
    (cov / (va * vb).sqrt()) as f32
}

/// How many of the `k` edges largest in size by `a` are among the `k` largest by `b`.
fn overlap(a: &[f32], b: &[f32], k: usize) -> usize {
    let top = |x: &[f32]| {
        let mut order: Vec<usize> = (0..x.len()).collect();
        order.sort_by(|&i, &j| x[j].abs().total_cmp(&x[i].abs()));
        order.truncate(k);
        order
    };
    let (ta, tb) = (top(a), top(b));
    ta.iter().filter(|i| tb.contains(i)).count()
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let q = &look.questions;
    value(look.run.circuits(&q.circuit, (&q.clean, &q.corrupted))?)
}

#[cfg(test)]
mod tests;
