//! Token embeddings in 2-D: each token on the embeddings' top two principal components (PCA).

use super::look::{value, Look};
use super::pca::pca;
use crate::error::Result;
use serde::Serialize;

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Embeddings {
    pub tokens: Vec<String>,
    /// (x, y) per token.
    pub points: Vec<[f32; 2]>,
    /// The share of the variance each axis explains.
    pub explained: Vec<f32>,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let (v, c) = (look.run.vocab_size(), look.run.model().config().n_embd);
    let wte = look.run.model().params().get("transformer.wte.weight").expect("every model has wte");
    let (coords, explained) = pca(wte.as_slice().expect("standard layout"), v, c, 2);
    value(Embeddings {
        tokens: (0..v).map(|id| look.text(id)).collect(),
        points: coords.chunks_exact(2).map(|p| [p[0], p[1]]).collect(),
        explained,
    })
}
