//! The residual stream: its norm at each probe position entering each layer and leaving the
//! last, and the norms of what each layer's attention and MLP add to it.

use super::look::{norms, value, Look};
use crate::error::Result;
use serde::Serialize;

/// Norms over the probe's positions: of the stream ((L + 1) × T), of what attention and the MLP
/// add (L × T each).
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Residual {
    pub t: usize,
    pub stream: Vec<f32>,
    pub attn: Vec<f32>,
    pub mlp: Vec<f32>,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let (trace, c) = (look.trace()?, look.run.model().config().n_embd);
    let layer_norms = |rows: &[Vec<f32>]| rows.iter().flat_map(|r| norms(r, c)).collect();
    value(Residual {
        t: trace.t,
        stream: layer_norms(&trace.residual),
        attn: layer_norms(&trace.attn),
        mlp: layer_norms(&trace.mlp),
    })
}
