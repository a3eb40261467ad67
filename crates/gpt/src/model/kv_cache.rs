//! The key/value cache of generation (`decode.rs`): every layer's keys and values of the
//! positions seen so far, and the rows each new position reuses.

/// The keys and values of every position seen so far, per layer, plus scratch rows reused
/// from token to token.
#[derive(Default)]
pub struct KvCache {
    pub(super) layers: Vec<LayerCache>,
    pub(super) len: usize,
    pub(super) scratch: Scratch,
}

/// One layer's (positions, C) keys and values, heads side by side.
#[derive(Default)]
pub(crate) struct LayerCache {
    pub(crate) keys: Vec<f32>,
    pub(crate) values: Vec<f32>,
}

/// Rows reused from token to token, so generating allocates nothing per token.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) x: Vec<f32>,
    pub(crate) h: Vec<f32>,
    pub(crate) update: Vec<f32>,
    pub(crate) qkv: Vec<f32>,
    pub(crate) y: Vec<f32>,
    pub(crate) wide: Vec<f32>,
    pub(crate) scores: Vec<f32>,
}

impl KvCache {
    /// Positions cached so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        for layer in &mut self.layers {
            layer.keys.clear();
            layer.values.clear();
        }
        self.len = 0;
    }
}
