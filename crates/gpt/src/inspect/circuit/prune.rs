//! Circuits, and how faithful each is. A circuit is a set of edges; every other edge is patched
//! from the corrupted run, as EAP-IG's `evaluate_graph` does: a reader sees the stream as this
//! pass made it, minus what each writer it no longer hears wrote in this pass, plus what that
//! writer wrote on the corrupted prompts. Its faithfulness is the share of the metric's clean −
//! corrupted difference it keeps: 1 for the whole model, 0 for none of it.
//!
//! The fewest edges that keep [`TARGET`] are found two ways: by a ranking of single edges (the
//! top k, for the smallest k that keeps it), and by greedy pruning in ACDC's manner (Conmy et al.
//! 2023): remove each edge in turn while the circuit still keeps it.

use super::request::Metric;
use crate::error::{Error, Result};
use crate::model::{metric_rows, EdgeGraph, Reader, Rewire, Runs, Writer, GPT};
use crate::words::{fixed, views};
use serde::Serialize;

/// The share of the metric a found circuit keeps.
pub const TARGET: f32 = 0.9;

/// What a circuit's pass needs: the writers' outputs so far, and which edges it keeps.
struct Pruned<'a> {
    model: &'a GPT,
    graph: &'a EdgeGraph,
    kept: &'a [bool],
    run: &'a Runs<'a>,
    /// Each writer's output in this pass, once written (before that, its clean output).
    current: Vec<Option<Vec<f32>>>,
}

impl Pruned<'_> {
    fn current(&self, w: usize) -> &[f32] {
        self.current[w].as_deref().unwrap_or(&self.run.clean[w])
    }

    fn wrote(&mut self, writer: Writer, out: Vec<f32>) {
        let at = self.graph.writers.iter().position(|w| *w == writer).expect("a writer of the graph");
        self.current[at] = Some(out);
    }
}

impl Rewire for Pruned<'_> {
    fn embedding(&mut self, computed: &[f32]) -> Option<Vec<f32>> {
        self.wrote(Writer::Input, computed.to_vec());
        None
    }

    fn delta(&mut self, reader: Reader) -> Option<Vec<f32>> {
        let r = self.graph.readers.iter().position(|x| *x == reader)?;
        let mut delta: Option<Vec<f32>> = None;
        for (edge, _) in self.graph.edges.iter().zip(self.kept).filter(|(e, &k)| e.reader == r && !k) {
            let w = edge.writer;
            let sum = delta.get_or_insert_with(|| vec![0.0; self.run.clean[w].len()]);
            let (clean, difference, current) = (&self.run.clean[w], &self.run.difference[w], self.current(w));
            for (i, s) in sum.iter_mut().enumerate() {
                *s += clean[i] + difference[i] - current[i];
            }
        }
        delta
    }

    fn heads(&mut self, layer: usize, z: &[f32]) {
        for (head, out) in self.model.head_outputs(layer, z).into_iter().enumerate() {
            self.wrote(Writer::Head { layer, head }, out);
        }
    }

    fn mlp(&mut self, layer: usize, out: &[f32]) {
        self.wrote(Writer::Mlp { layer }, out.to_vec());
    }
}

/// The model and its pairs, ready to evaluate circuits on.
pub(super) struct Evaluator<'a> {
    pub model: &'a GPT,
    pub graph: &'a EdgeGraph,
    pub runs: &'a [Runs<'a>],
    pub metric: Metric,
    /// The metric's mean over the pairs, clean and corrupted.
    pub clean: f32,
    pub corrupted: f32,
}

impl<'a> Evaluator<'a> {
    pub(super) fn new(model: &'a GPT, graph: &'a EdgeGraph, runs: &'a [Runs<'a>], metric: Metric) -> Result<Self> {
        let (clean, corrupted) = Self::means(runs);
        if (clean - corrupted).abs() <= 1e-4 * clean.abs().max(1.0) {
            return Err(Error::Data(views::no_difference(fixed(f64::from(clean), 4), fixed(f64::from(corrupted), 4))));
        }
        Ok(Evaluator { model, graph, runs, metric, clean, corrupted })
    }

    /// The metric's mean over all the pairs, clean and corrupted.
    pub(super) fn means(runs: &[Runs]) -> (f32, f32) {
        let n: usize = runs.iter().map(|r| r.group.rows()).sum();
        let mean = |values: Vec<&f32>| values.into_iter().sum::<f32>() / n as f32;
        (
            mean(runs.iter().flat_map(|r| &r.clean_metric).collect()),
            mean(runs.iter().flat_map(|r| &r.corrupted_metric).collect()),
        )
    }

    /// The share of the metric's clean − corrupted difference that the circuit `kept` keeps.
    pub(super) fn faithfulness(&self, kept: &[bool]) -> Result<f32> {
        let removed = self.graph.edges.iter().zip(kept).filter(|(_, &k)| !k);
        let Some(from) = removed.map(|(e, _)| self.graph.layer_of(e)).min() else { return Ok(1.0) };
        let (mut total, mut n) = (0.0, 0);
        for run in self.runs {
            let group = run.group;
            let mut rewire =
                Pruned { model: self.model, graph: self.graph, kept, run, current: vec![None; run.clean.len()] };
            let stream = Some((from, &run.stream[from][..]));
            let logits = self.model.rewired_logits(&group.clean, (group.rows(), group.t), stream, &mut rewire)?;
            total += metric_rows(&logits, group, self.metric).iter().sum::<f32>();
            n += group.rows();
        }
        Ok((total / n as f32 - self.corrupted) / (self.clean - self.corrupted))
    }
}

/// A circuit found one way, and how it was found.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Found {
    /// The edges it keeps, by index.
    pub edges: Vec<usize>,
    /// The share of the metric it keeps.
    pub faithfulness: f32,
    /// The share the rest of the model keeps without it.
    pub complement: f32,
    /// The faithfulness of the circuits tried on the way, by the edges each keeps (a ranking's
    /// top k, each without the edges on no path from the input to the logits).
    pub curve: Vec<(usize, f32)>,
    /// Whether it reaches [`TARGET`] (the whole model does not always).
    pub reached: bool,
}

impl Evaluator<'_> {
    fn found(&self, kept: Vec<bool>, curve: Vec<(usize, f32)>) -> Result<Found> {
        let kept = self.graph.connected(&kept);
        let faithfulness = self.faithfulness(&kept)?;
        let rest: Vec<bool> = kept.iter().map(|k| !k).collect();
        Ok(Found {
            edges: (0..kept.len()).filter(|&i| kept[i]).collect(),
            reached: faithfulness >= TARGET,
            complement: self.faithfulness(&rest)?,
            faithfulness,
            curve,
        })
    }

    /// The top `k` edges by the size of their `scores`, for the smallest `k` that keeps
    /// [`TARGET`]: k tried at about 16 points (each 1.4 times the last), then halved in between.
    pub(super) fn by_ranking(&self, scores: &[f32]) -> Result<Found> {
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].abs().total_cmp(&scores[a].abs()));
        let top = |k: usize| {
            let mut kept = vec![false; scores.len()];
            order[..k].iter().for_each(|&i| kept[i] = true);
            kept
        };
        let mut ks = vec![0, 1, 2, 3];
        while *ks.last().expect("listed") < scores.len() {
            let last = *ks.last().expect("listed");
            ks.push(((last as f32 * 1.4).ceil() as usize).min(scores.len()));
        }
        let mut curve = Vec::with_capacity(ks.len() + 8);
        let mut first = None;
        let edges_in = |k: usize| self.graph.connected(&top(k)).iter().filter(|&&e| e).count();
        for &k in &ks {
            let f = if k == 0 { 0.0 } else { self.faithfulness(&top(k))? };
            curve.push((k, f));
            if f >= TARGET && first.is_none() {
                first = Some(curve.len() - 1);
            }
        }
        let Some(at) = first else {
            let curve = curve.into_iter().map(|(k, f)| (edges_in(k), f)).collect();
            return self.found(top(scores.len()), curve);
        };
        // Between the last k short of the target and the first past it.
        let (mut low, mut high) = (curve[at.saturating_sub(1)].0, curve[at].0);
        while high - low > 1 {
            let mid = (low + high) / 2;
            let f = self.faithfulness(&top(mid))?;
            curve.push((mid, f));
            if f >= TARGET {
                high = mid;
            } else {
                low = mid;
            }
        }
        curve.sort_by_key(|&(k, _)| k);
        let curve = curve.into_iter().map(|(k, f)| (edges_in(k), f)).collect();
        self.found(top(high), curve)
    }

    /// Greedy pruning: each edge in turn, the least by `scores` first, removed wherever the
    /// circuit without it still keeps [`TARGET`]. Unlike a ranking's top k it tests each edge
    /// among those left, so an edge whose work another does goes.
    pub(super) fn greedy(&self, scores: &[f32]) -> Result<Found> {
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[a].abs().total_cmp(&scores[b].abs()));
        let mut kept = vec![true; self.graph.edges.len()];
        let mut curve = vec![(kept.len(), 1.0)];
        for e in order {
            kept[e] = false;
            let f = self.faithfulness(&kept)?;
            if f < TARGET {
                kept[e] = true;
            } else {
                curve.push((self.graph.connected(&kept).iter().filter(|&&k| k).count(), f));
            }
        }
        curve.reverse();
        self.found(kept, curve)
    }
}
