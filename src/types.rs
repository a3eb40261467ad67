//! The objects the bindings build around typed arrays, which move without a copy; declared to
//! TypeScript from these types, as every other type the page meets is from the core's.

use js_sys::Float32Array;
use serde::Serialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Every layer's and head's attention: `weights[((l * n_head + h) * t + query) * t + key]`.
#[derive(Serialize, Tsify)]
pub struct AttentionMaps {
    pub tokens: Vec<String>,
    pub n_layer: usize,
    pub n_head: usize,
    pub t: usize,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Float32Array")]
    pub weights: Float32Array,
    /// For the time-lapse, the step of each map, `weights` holding them one after another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<usize>>,
}

/// An order for helper `to` (1 and up) or a reply: a JSON header, and floats (weights, pieces,
/// gradients) that move between Web Workers without a copy.
#[derive(Serialize, Tsify)]
pub struct Message {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<usize>,
    pub header: String,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(optional, type = "Float32Array")]
    pub data: JsValue,
}

/// How work goes on: orders to send now, what the run does next, and once done its outcome.
#[derive(Serialize, Tsify)]
pub struct Progress {
    pub orders: Vec<Message>,
    pub next: gpt::Next,
    #[tsify(optional)]
    pub outcome: Option<gpt::Outcome>,
}

impl From<gpt::AttentionMaps> for AttentionMaps {
    fn from(m: gpt::AttentionMaps) -> AttentionMaps {
        let gpt::AttentionMaps { tokens, n_layer, n_head, t, weights, steps } = m;
        AttentionMaps { tokens, n_layer, n_head, t, weights: weights[..].into(), steps }
    }
}

impl Message {
    /// `header`, and the floats of `parts` one after another in `buffer` when it fits them (its
    /// memory reused), else in a new one.
    pub fn new(to: Option<usize>, header: String, parts: &[&[f32]], buffer: Option<Float32Array>) -> Message {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let buffer = buffer.filter(|b| b.length() as usize == len);
        let buffer = buffer.unwrap_or_else(|| Float32Array::new_with_length(len as u32));
        parts.iter().fold(0, |at, part| {
            buffer.subarray(at as u32, (at + part.len()) as u32).copy_from(part);
            at + part.len()
        });
        Message { to, header, data: if len > 0 { buffer.into() } else { JsValue::UNDEFINED } }
    }
}

/// How many floats `data` holds, and a copier of `out.len()` of them from `at`.
pub fn floats(data: Option<&Float32Array>) -> (usize, impl Fn(usize, &mut [f32]) + '_) {
    let copy = move |at: usize, out: &mut [f32]| {
        if let Some(d) = data {
            d.subarray(at as u32, (at + out.len()) as u32).copy_to(out);
        }
    };
    (data.map_or(0, |d| d.length() as usize), copy)
}
