//! Position embeddings: the learned table (T × C) and how alike its rows are (T × T cosines);
//! none with rotary embeddings, which have no table.

use super::look::{norms, value, Look};
use crate::error::Result;
use serde::Serialize;

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Positions {
    pub t: usize,
    pub c: usize,
    pub values: Vec<f32>,
    pub cosine: Vec<f32>,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let config = look.run.model().config();
    let (t, c) = (config.block_size, config.n_embd);
    let Some(wpe) = look.run.model().params().get("transformer.wpe.weight") else { return value(None::<Positions>) };
    let values = wpe.as_slice().expect("standard layout").to_vec();
    let n: Vec<f32> = norms(&values, c).map(|n| n.max(f32::MIN_POSITIVE)).collect();
    let row = |i: usize| &values[i * c..(i + 1) * c];
    let cosine = (0..t * t)
        .map(|k| row(k / t).iter().zip(row(k % t)).map(|(a, b)| a * b).sum::<f32>() / (n[k / t] * n[k % t]))
        .collect();
    value(Some(Positions { t, c, values, cosine }))
}
