//! The attribution graph behind one prediction, as circuit tracing builds it (Ameisen et al.
//! 2025; decoderesearch/circuit-tracer's `attribute`): the model's MLPs replaced by a run's
//! transcoders, its attention patterns and norm scales frozen at the prompt's values (the local
//! replacement model, `model/frozen.rs`), and every direct, linear effect between the prompt's
//! nodes: the tokens' embeddings, each active feature at each layer and position, each layer's
//! error at each position (what the transcoder misses, so the graph reproduces the model), and
//! the most likely next tokens' logits. `prune.rs` keeps what matters to the output and scores
//! how much of it the features explain; `intervene.rs` tests it, knocking features out or
//! steering them, beside what the graph predicts; `neuronpedia.rs` writes it for Neuronpedia's
//! viewer; `qk.rs` says why a head attends where it does, and `loadings.rs` which heads carry an
//! edge between positions. `sources.rs` finds the nodes that write and their edges into any
//! readers.

#[cfg(test)]
mod fixtures;
mod intervene;
mod loadings;
mod neuronpedia;
mod prune;
mod qk;
mod requests;
mod sources;
#[cfg(test)]
mod tests;

pub use intervene::{intervene, LogitEffect};
pub use loadings::head_loadings;
pub use neuronpedia::Naming;
pub use prune::{GraphScores, Pruned};
pub use qk::{head_scores, QkPair, QkSide, QkTerms};
pub use requests::{GraphFeature, PageGraph, TokenEffect, TranscoderAnswer, TranscoderRequest};

use crate::error::{Error, Result};
use crate::model::{FrozenRead, GPT};
use crate::sae::{SaeTrainee, Transcoders};
use crate::words::views;
use serde::Serialize;
use sources::Sources;

/// Which logits the graph explains: circuit-tracer's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogitChoice {
    /// At most this many of the most likely next tokens,
    pub max_logits: usize,
    /// the fewest whose probabilities add up to this.
    pub probability: f32,
}

impl Default for LogitChoice {
    fn default() -> Self {
        LogitChoice { max_logits: 10, probability: 0.95 }
    }
}

/// A feature firing at one position: a node of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ActiveFeature {
    pub layer: usize,
    pub position: usize,
    pub feature: usize,
    pub activation: f32,
}

/// A next token the graph explains, with its probability.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LogitNode {
    pub token: usize,
    pub probability: f32,
}

/// A prompt's attribution graph. Nodes are numbered as circuit-tracer numbers them: the active
/// features (by layer, then position, then feature), each layer's error at each position (by
/// layer, then position), each token's embedding, then the logits.
#[derive(Clone, Debug, PartialEq)]
pub struct AttributionGraph {
    pub tokens: Vec<usize>,
    pub layers: usize,
    pub features: Vec<ActiveFeature>,
    pub logits: Vec<LogitNode>,
    /// The direct effects: a row for each node that reads (each feature, then each logit), a
    /// column for each node that writes (each feature, each error, each token).
    pub adjacency: Vec<f32>,
    /// Each layer's error at each position, (T, C): the MLP's output less its transcoder's.
    pub errors: Vec<Vec<f32>>,
}

impl AttributionGraph {
    /// Nodes in all: features, errors, tokens, logits.
    pub fn nodes(&self) -> usize {
        self.sources() + self.logits.len()
    }

    /// Nodes that write: features, errors and tokens (the adjacency's columns).
    pub fn sources(&self) -> usize {
        self.features.len() + (self.layers + 1) * self.tokens.len()
    }

    /// Node `target`'s direct effect from node `source` (0 where the target reads nothing).
    pub fn edge(&self, target: usize, source: usize) -> f32 {
        let row = match target {
            t if t < self.features.len() => t,
            t if t >= self.sources() => t - self.sources() + self.features.len(),
            _ => return 0.0,
        };
        self.adjacency.get(row * self.sources() + source).copied().unwrap_or(0.0)
    }

    /// The memory its direct effects take.
    pub fn bytes(&self) -> usize {
        self.adjacency.len() * std::mem::size_of::<f32>()
    }

    /// The node of layer `layer`'s error at `position`.
    pub fn error_node(&self, layer: usize, position: usize) -> usize {
        self.features.len() + layer * self.tokens.len() + position
    }

    /// The node of the token embedding at `position`.
    pub fn token_node(&self, position: usize) -> usize {
        self.features.len() + self.layers * self.tokens.len() + position
    }
}

/// The attribution graph of a run's transcoders on `prompt` (see [`attribution_graph`]), on the
/// model they read.
pub fn of_prompt(run: &crate::Run, prompt: &str, choice: LogitChoice) -> Result<AttributionGraph> {
    let (trainee, tokens) = traced(run, prompt)?;
    attribution_graph(trainee.model(), trainee.dictionaries(), &tokens, choice, BATCH)
}

/// A run's transcoders (with the model they read) and `prompt`'s tokens, if the run has them
/// and the prompt fits the model's block.
pub fn traced<'a>(run: &'a crate::Run, prompt: &str) -> Result<(&'a SaeTrainee<Transcoders>, Vec<usize>)> {
    let trainer = run.transcoders().ok_or_else(|| Error::Config(views::no_transcoders_to_trace()))?;
    let tokens: Vec<usize> = run.tokenizer().encode(prompt)?.into_iter().map(|t| t as usize).collect();
    let block = run.model().config().block_size;
    if tokens.is_empty() {
        return Err(Error::Data(views::trace_prompt()));
    }
    if tokens.len() > block {
        return Err(Error::Data(views::prompt_too_long(tokens.len(), block)));
    }
    Ok((trainer.model(), tokens))
}

/// The most an attribution graph's direct effects may take: a wasm page has 4 GB at most, and a
/// phone far less.
pub const MAX_GRAPH_BYTES: usize = 512 << 20;

/// Readers back-propagated together: enough to fill the matrix products, few enough that their
/// gradients (each T × C) stay small.
const BATCH: usize = 64;

/// The attribution graph of `model` with `transcoders` in its MLPs' place on `tokens`, for the
/// logits `choice` picks at the last position; targets are back-propagated `batch` at a time.
pub fn attribution_graph(
    model: &GPT,
    transcoders: &Transcoders,
    tokens: &[usize],
    choice: LogitChoice,
    batch: usize,
) -> Result<AttributionGraph> {
    let sources = Sources::of(model, transcoders, tokens)?;
    let c = model.config();
    let t = tokens.len();
    let logits = pick_logits(&sources.value("logits")[(t - 1) * c.vocab_size..], choice);
    let (reads, directions) = readers(model, transcoders, &sources.features, &logits, t);
    let bytes = reads.len() * sources.count() * std::mem::size_of::<f32>();
    if bytes > MAX_GRAPH_BYTES {
        return Err(Error::Data(views::graph_too_big(bytes >> 20, sources.features.len(), t, MAX_GRAPH_BYTES >> 20)));
    }
    let adjacency = sources.edges(&reads, &directions, batch);
    let Sources { features, errors, .. } = sources;
    Ok(AttributionGraph { tokens: tokens.to_vec(), layers: c.n_layer, features, logits, adjacency, errors })
}

/// What `features` and `logits` read, and along which directions (rows of C): each feature's
/// encoder column at its position, each logit's unembedding row less the mean row (circuit-tracer's
/// demeaned logit) at the last of `t` positions.
fn readers(
    model: &GPT,
    transcoders: &Transcoders,
    features: &[ActiveFeature],
    logits: &[LogitNode],
    t: usize,
) -> (Vec<(FrozenRead, usize)>, Vec<f32>) {
    let c = model.config();
    let d = c.n_embd;
    let mut reads = Vec::with_capacity(features.len() + logits.len());
    let mut directions = Vec::with_capacity((features.len() + logits.len()) * d);
    for f in features {
        let w_enc = transcoders.layer(f.layer).tensors()[0].as_slice().expect("standard layout");
        let m = transcoders.layer(f.layer).d_sae();
        reads.push((FrozenRead::MlpIn { layer: f.layer }, f.position));
        directions.extend((0..d).map(|i| w_enc[i * m + f.feature]));
    }
    if !logits.is_empty() {
        let unembedding = model.unembedding();
        let mean: Vec<f32> =
            (0..d).map(|i| unembedding.chunks_exact(d).map(|row| row[i]).sum::<f32>() / c.vocab_size as f32).collect();
        for l in logits {
            reads.push((FrozenRead::Logits, t - 1));
            let row = &unembedding[l.token * d..(l.token + 1) * d];
            directions.extend(row.iter().zip(&mean).map(|(w, m)| w - m));
        }
    }
    (reads, directions)
}

/// The most likely next tokens, at most `choice.max_logits`, the fewest whose probabilities
/// reach `choice.probability` (circuit-tracer's `_from_salient`).
fn pick_logits(logits: &[f32], choice: LogitChoice) -> Vec<LogitNode> {
    let max = logits.iter().fold(f32::NEG_INFINITY, |m, &l| m.max(l));
    let total: f64 = logits.iter().map(|&l| ((l - max) as f64).exp()).sum();
    let mut order: Vec<usize> = (0..logits.len()).collect();
    order.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]).then(a.cmp(&b)));
    let mut picked = Vec::new();
    let mut sum = 0.0;
    for token in order.into_iter().take(choice.max_logits.max(1)) {
        let probability = (((logits[token] - max) as f64).exp() / total) as f32;
        picked.push(LogitNode { token, probability });
        sum += probability;
        if sum >= choice.probability {
            break;
        }
    }
    picked
}
