//! Why a head attends where it does (what circuit-tracer's users ask of an attention edge): with
//! the prompt's norm scales frozen (and QK-norm's, and RoPE's turn by position, both linear then),
//! a head's query at one position and its key at another are each a sum over the graph's writing
//! nodes (features, errors, token embeddings: their direct effects, `sources.rs`) plus what the
//! biases bring; so its score before the softmax, q·k/√d, splits exactly into one term for each
//! pair of a query-side node and a key-side node.

use super::sources::Sources;
use crate::error::{Error, Result};
use crate::model::{FrozenRead, GPT};
use crate::ops::{qk_norm::normalize_head, rope::rotate_head};
use crate::sae::Transcoders;
use crate::words::views;
use serde::Serialize;

/// One side of a term: a writing node of the graph, or the biases (of the query or key projection,
/// the norms and earlier blocks, and learned positions).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QkSide {
    Feature { layer: usize, position: usize, feature: usize },
    Error { layer: usize, position: usize },
    Token { position: usize },
    Bias,
}

/// The part of the score one query-side node and one key-side node make together.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct QkPair {
    pub query: QkSide,
    pub key: QkSide,
    pub value: f32,
}

/// A head's score from one position to another, and the strongest of the terms it splits into.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct QkTerms {
    pub layer: usize,
    pub head: usize,
    pub query: usize,
    pub key: usize,
    /// q·k/√d before the softmax, and the attention after it.
    pub score: f32,
    pub attention: f32,
    /// Every term summed (the score, up to rounding), and how many there are.
    pub total: f32,
    pub terms: usize,
    /// The strongest terms, by size.
    pub pairs: Vec<QkPair>,
    /// The share of the query and of the key that the biases bring (0 on a model without biases).
    pub query_bias_share: f32,
    pub key_bias_share: f32,
}

/// Why head `head` of block `layer` of `model` (with `transcoders` in its MLPs' place) attends
/// from position `query` to position `key` of `tokens`: its score and its `top` strongest terms.
pub fn head_scores(
    model: &GPT,
    transcoders: &Transcoders,
    tokens: &[usize],
    (layer, head): (usize, usize),
    (query, key): (usize, usize),
    top: usize,
) -> Result<QkTerms> {
    let c = model.config();
    let (d, nh, t) = (c.n_embd, c.n_head, tokens.len());
    if layer >= c.n_layer || head >= nh {
        return Err(Error::Data(views::no_head(head + 1, layer + 1, c.n_layer, nh)));
    }
    if key > query || query >= t {
        return Err(Error::Data(views::attends_back(t, query, key)));
    }
    let sources = Sources::of(model, transcoders, tokens)?;
    let hs = d / nh;
    // The query's and key's coordinates as the scores read them, and the projections' rows.
    let stage = if c.rope {
        "hook_rot_q"
    } else if c.qk_norm {
        "q_norm.hook_normalized"
    } else {
        "hook_qkv"
    };
    let at = |name: &str, side: usize, p: usize| {
        let from = p * 3 * d + side * d + head * hs;
        sources.value(&format!("blocks.{layer}.attn.{name}"))[from..from + hs].to_vec()
    };
    let weight = model.params().get(&format!("transformer.h.{layer}.attn.c_attn.weight")).expect("a block's q|k|v");
    let weight = weight.as_slice().expect("standard layout");
    let mut reads = Vec::with_capacity(2 * hs);
    let mut directions = Vec::with_capacity(2 * hs * d);
    for (side, p) in [(0, query), (1, key)] {
        // QK-norm's scale at this position, frozen, then RoPE's turn: each coordinate reads the
        // stream along a mix of the projection's rows.
        let scale = if c.qk_norm { normalize_head(&mut at("hook_qkv", side, p)) } else { 1.0 };
        let rows = &weight[(side * d + head * hs) * d..(side * d + (head + 1) * hs) * d];
        let mut mixed: Vec<f32> = rows.iter().map(|w| w * scale).collect();
        if c.rope {
            let mut column = vec![0.0; hs];
            for i in 0..d {
                column.iter_mut().enumerate().for_each(|(j, v)| *v = mixed[j * d + i]);
                rotate_head(&mut column, p);
                column.iter().enumerate().for_each(|(j, &v)| mixed[j * d + i] = v);
            }
        }
        reads.extend(std::iter::repeat_n((FrozenRead::AttnIn { layer }, p), hs));
        directions.extend(mixed);
    }
    let n = sources.count();
    let edges = sources.edges(&reads, &directions, 2 * hs);
    // Each node's part of the query (and of the key), hs numbers; the biases bring the rest.
    let parts = |side: usize, whole: &[f32]| -> (Vec<f32>, Vec<f32>) {
        let mut parts = vec![0.0; n * hs];
        for i in 0..hs {
            let row = &edges[(side * hs + i) * n..(side * hs + i + 1) * n];
            row.iter().enumerate().for_each(|(a, &v)| parts[a * hs + i] = v);
        }
        let bias = (0..hs).map(|i| whole[i] - (0..n).map(|a| parts[a * hs + i] as f64).sum::<f64>() as f32).collect();
        (parts, bias)
    };
    let (q, k) = (at(stage, 0, query), at(stage, 1, key));
    let (q_parts, q_bias) = parts(0, &q);
    let (k_parts, k_bias) = parts(1, &k);
    let side = |a: usize| -> QkSide {
        let features = sources.features.len();
        match a {
            a if a == n => QkSide::Bias,
            a if a < features => {
                let f = sources.features[a];
                QkSide::Feature { layer: f.layer, position: f.position, feature: f.feature }
            }
            a if a < n - t => QkSide::Error { layer: (a - features) / t, position: (a - features) % t },
            a => QkSide::Token { position: a - (n - t) },
        }
    };
    let vector = |parts: &'_ [f32], bias: &'_ [f32], a: usize| -> Vec<f32> {
        if a == n {
            bias.to_vec()
        } else {
            parts[a * hs..(a + 1) * hs].to_vec()
        }
    };
    let live = |parts: &[f32], bias: &[f32]| -> Vec<(usize, Vec<f32>)> {
        (0..=n).map(|a| (a, vector(parts, bias, a))).filter(|(_, v)| v.iter().any(|&x| x != 0.0)).collect()
    };
    let (qs, ks) = (live(&q_parts, &q_bias), live(&k_parts, &k_bias));
    let root = (hs as f32).sqrt();
    let (mut total, mut pairs) = (0.0f64, Vec::new());
    for (a, qa) in &qs {
        for (b, kb) in &ks {
            let value = qa.iter().zip(kb).map(|(x, y)| x * y).sum::<f32>() / root;
            total += value as f64;
            pairs.push(QkPair { query: side(*a), key: side(*b), value });
        }
        // Keep the strongest few as they come, so memory stays small however many nodes fire.
        if pairs.len() > 8 * top.max(64) {
            strongest(&mut pairs, top);
        }
    }
    let terms = qs.len() * ks.len();
    strongest(&mut pairs, top);
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let full = sources.frozen.t();
    let attention = sources.frozen.hooked.pattern[((layer * nh + head) * full + query) * full + key];
    Ok(QkTerms {
        layer,
        head,
        query,
        key,
        score: q.iter().zip(&k).map(|(x, y)| x * y).sum::<f32>() / root,
        attention,
        total: total as f32,
        terms,
        pairs,
        query_bias_share: norm(&q_bias) / norm(&q).max(f32::MIN_POSITIVE),
        key_bias_share: norm(&k_bias) / norm(&k).max(f32::MIN_POSITIVE),
    })
}

/// Keeps the `top` largest of `pairs` by size, largest first.
fn strongest(pairs: &mut Vec<QkPair>, top: usize) {
    pairs.sort_by(|a, b| b.value.abs().total_cmp(&a.value.abs()));
    pairs.truncate(top);
}
