//! The nodes of a prompt's graph that write into the stream, as circuit-tracer numbers them (each
//! active feature, each layer's error at each position, each token's embedding), from one frozen
//! pass, and their direct effects on any readers (a feature's encoder, a logit, a head's query or
//! key): each reader back-propagated through the frozen model, its gradient dotted with what each
//! node writes where it writes it.

use super::ActiveFeature;
use crate::error::{Error, Result};
use crate::model::{FrozenPass, FrozenRead, GPT};
use crate::sae::{Codes, Transcoders};
use crate::words::{dictionaries, views};
use crate::workspace::Workspace;
use ndarray::{ArrayView2, ArrayViewMut2, ShapeBuilder};

/// What writes into the stream on a prompt, with the frozen pass it came from.
pub(super) struct Sources<'a> {
    model: &'a GPT,
    /// Each layer's skip connection, if its transcoder has one.
    pub skips: Vec<Option<&'a [f32]>>,
    tokens: &'a [usize],
    pub frozen: FrozenPass,
    pub features: Vec<ActiveFeature>,
    /// Each feature's activation times its direction, rows of C in the features' order.
    writes: Vec<f32>,
    /// Each layer's error at each position, (T, C): the MLP's output less the transcoder's.
    pub errors: Vec<Vec<f32>>,
    /// Where each (layer, position)'s features start.
    starts: Vec<usize>,
}

impl<'a> Sources<'a> {
    /// The writing nodes of `model` with `transcoders` in its MLPs' place on `tokens`.
    pub fn of(model: &'a GPT, transcoders: &'a Transcoders, tokens: &'a [usize]) -> Result<Sources<'a>> {
        let c = model.config();
        let (d, t, layers) = (c.n_embd, tokens.len(), c.n_layer);
        if transcoders.layers() != layers || transcoders.d_in() != d {
            return Err(Error::Config(dictionaries::transcoders_misfit(
                transcoders.layers(),
                transcoders.d_in(),
                layers,
                d,
            )));
        }
        if t == 0 {
            return Err(Error::Data(views::graph_prompt()));
        }
        let frozen = model.freeze(tokens)?;
        let ws = Workspace::default();
        let value = |name: String| &frozen.hooked.get(&name).expect("every block is hooked").values;
        let (mut features, mut writes, mut errors) = (Vec::new(), Vec::new(), Vec::new());
        let mut starts = vec![0];
        for layer in 0..layers {
            let transcoder = transcoders.layer(layer);
            let input = value(format!("blocks.{layer}.ln2.hook_out"));
            let codes: Codes = transcoder.encode(&ws, input);
            let mut error = value(format!("blocks.{layer}.hook_mlp_out")).clone();
            let written = transcoder.output(input, &codes);
            error.iter_mut().zip(&written).for_each(|(e, r)| *e -= r);
            for position in 0..t {
                for (feature, activation) in codes.row(position) {
                    features.push(ActiveFeature { layer, position, feature, activation });
                    writes.extend(transcoder.direction(feature).iter().map(|w| activation * w));
                }
                starts.push(features.len());
            }
            errors.push(error);
        }
        let skips = transcoders.each().iter().map(|t| t.skip_weights()).collect();
        Ok(Sources { model, skips, tokens, frozen, features, writes, errors, starts })
    }

    /// The frozen pass's value `name` (`logits`, `blocks.0.attn.hook_qkv`, …).
    pub fn value(&self, name: &str) -> &[f32] {
        &self.frozen.hooked.get(name).expect("a hooked value").values
    }

    /// The writing nodes: features, errors, then tokens.
    pub fn count(&self) -> usize {
        self.features.len() + (self.errors.len() + 1) * self.tokens.len()
    }

    /// Each reader's direct effect from every writing node, rows of [`Sources::count`]: reader
    /// `i` reads `reads[i]` along `directions[i]` (rows of C), `batch` of them back-propagated at
    /// a time.
    pub fn edges(&self, reads: &[(FrozenRead, usize)], directions: &[f32], batch: usize) -> Vec<f32> {
        let (d, t, layers) = (self.model.config().n_embd, self.tokens.len(), self.errors.len());
        let (sources, n_features) = (self.count(), self.features.len());
        let mut edges = vec![0.0; reads.len() * sources];
        let batch = batch.max(1);
        for (k, (reads, directions)) in reads.chunks(batch).zip(directions.chunks(batch * d)).enumerate() {
            let (first, n) = (k * batch, reads.len());
            let block = &mut edges[first * sources..(first + n) * sources];
            self.model.frozen_backward(&self.frozen, reads, directions, &self.skips, &mut |layer, g, reached| {
                for p in 0..reached {
                    // Each reader's gradient at position p: rows of C, one reader after another.
                    let g = ArrayView2::from_shape((n, d).strides((reached * d, 1)), &g[p * d..]).expect("(n, t, C)");
                    match layer {
                        Some(l) => {
                            let (from, to) = (self.starts[l * t + p], self.starts[l * t + p + 1]);
                            contract(block, sources, &g, &self.writes[from * d..to * d], from);
                            contract(block, sources, &g, &self.errors[l][p * d..(p + 1) * d], n_features + l * t + p);
                        }
                        None => contract(block, sources, &g, self.embedded(p), n_features + layers * t + p),
                    }
                }
            });
        }
        edges
    }

    /// The token embedding at `position`: what its node writes.
    fn embedded(&self, position: usize) -> &[f32] {
        let embedding = self.model.params().get("transformer.wte.weight").expect("a GPT has token embeddings");
        let d = self.model.config().n_embd;
        let token = self.tokens[position];
        &embedding.as_slice().expect("standard layout")[token * d..(token + 1) * d]
    }

    /// Where writing node `node` writes (at block `layer`'s MLP output, or the embeddings: `None`),
    /// at which position, and what.
    pub fn write(&self, node: usize) -> (Option<usize>, usize, &[f32]) {
        let (d, t, n_features) = (self.model.config().n_embd, self.tokens.len(), self.features.len());
        match node {
            n if n < n_features => {
                let f = self.features[n];
                (Some(f.layer), f.position, &self.writes[n * d..(n + 1) * d])
            }
            n if n < n_features + self.errors.len() * t => {
                let (layer, p) = ((n - n_features) / t, (n - n_features) % t);
                (Some(layer), p, &self.errors[layer][p * d..(p + 1) * d])
            }
            n => {
                let p = n - n_features - self.errors.len() * t;
                (None, p, self.embedded(p))
            }
        }
    }
}

/// Writes into `block` (rows of `sources`), from column `first`, each reader's gradient `g`
/// (n, C) dotted with each row of `vectors` (rows of C: what each node writes).
fn contract(block: &mut [f32], sources: usize, g: &ArrayView2<f32>, vectors: &[f32], first: usize) {
    let (n, d) = g.dim();
    let count = vectors.len() / d;
    if count == 0 {
        return;
    }
    let w = ArrayView2::from_shape((count, d), vectors).expect("rows of C");
    let mut out =
        ArrayViewMut2::from_shape((n, count).strides((sources, 1)), &mut block[first..]).expect("in the block");
    crate::ops::gemm::gemm(1.0, g, &w.t(), false, &mut out);
}
