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

/// An order for helper `to` (1 and up) or a reply: a JSON header, and floats that move between workers without a copy.
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

/// Buffers that came with messages (at most 16), kept for the messages it sends: a step's floats need no new memory.
#[derive(Default)]
pub struct Buffers(Vec<Float32Array>);

impl Buffers {
    /// `header`, and the floats of `parts` one after another in a kept buffer (its memory reused) or a new one.
    pub fn message(&mut self, to: Option<usize>, header: String, parts: &[&[f32]]) -> Message {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let buffer = (len > 0).then(|| self.take(len).unwrap_or_else(|| Float32Array::new_with_length(len as u32)));
        parts.iter().fold(0, |at, part| {
            buffer.iter().for_each(|b| b.subarray(at as u32, (at + part.len()) as u32).copy_from(part));
            at + part.len()
        });
        Message { to, header, data: buffer.map_or(JsValue::UNDEFINED, JsValue::from) }
    }

    /// `f(len, copy)` of the `len` floats `data` brings, `copy(at, out)` filling `out` from `at`; keeps its buffer if room.
    pub fn read<T>(&mut self, data: Option<Float32Array>, f: impl FnOnce(usize, &dyn Fn(usize, &mut [f32])) -> T) -> T {
        let copy = |at: usize, out: &mut [f32]| {
            data.iter().for_each(|d| d.subarray(at as u32, (at + out.len()) as u32).copy_to(out))
        };
        let read = f(data.as_ref().map_or(0, |d| d.length() as usize), &copy);
        self.0.extend(data.filter(|_| self.0.len() < 16).map(|d| Float32Array::new(&d.buffer())));
        read
    }

    /// The first `len` floats of the smallest kept buffer that holds them.
    fn take(&mut self, len: usize) -> Option<Float32Array> {
        let fits = (0..self.0.len()).filter(|&k| self.0[k].length() as usize >= len);
        let k = fits.min_by_key(|&k| self.0[k].length())?;
        Some(self.0.swap_remove(k).subarray(0, len as u32))
    }
}
