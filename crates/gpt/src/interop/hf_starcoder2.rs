//! Runs with rotary positions and LayerNorm but no QK-norm, as Transformers' own Starcoder2, which
//! holds them exactly (no remote code): our fused q|k|v rows as its three projections, the same
//! "rotate half" RoPE at base 10000, LayerNorm biases as zeros where the run has none (Starcoder2's
//! LayerNorms always have them; `use_bias` is for its linear layers).

use super::hf_shared::{activation, activation_name, bad, count, zero_bias};
use crate::checkpoint::{le_bytes, Tensor};
use crate::config::GPTConfig;
use crate::error::{Error, Result};
use crate::ops::NormKind;
use crate::words::files;
use crate::Run;
use ndarray::{Axis, Slice};
use serde_json::{json, Value};

pub const MODEL_TYPE: &str = "starcoder2";
const ROPE_THETA: f64 = 10000.0;

/// One of our tensors and the Starcoder2 tensors whose rows make it, in order. `always`: Starcoder2
/// has them even where the run has no biases.
struct Piece {
    ours: String,
    theirs: Vec<String>,
    always: bool,
}

fn layout(n_layer: usize, tied: bool) -> Vec<Piece> {
    let piece = |ours: String, theirs: Vec<String>, always| Piece { ours, theirs, always };
    let mut pieces = vec![piece("transformer.wte.weight".into(), vec!["model.embed_tokens.weight".into()], true)];
    for i in 0..n_layer {
        let (ours, theirs) = (format!("transformer.h.{i}."), format!("model.layers.{i}."));
        for p in ["weight", "bias"] {
            let is_weight = p == "weight";
            let one =
                |o: &str, t: &str, always| piece(format!("{ours}{o}.{p}"), vec![format!("{theirs}{t}.{p}")], always);
            let qkv = ["q", "k", "v"].map(|x| format!("{theirs}self_attn.{x}_proj.{p}")).to_vec();
            pieces.extend([
                one("ln_1", "input_layernorm", true),
                piece(format!("{ours}attn.c_attn.{p}"), qkv, is_weight),
                one("attn.c_proj", "self_attn.o_proj", is_weight),
                one("ln_2", "post_attention_layernorm", true),
                one("mlp.c_fc", "mlp.c_fc", is_weight),
                one("mlp.c_proj", "mlp.c_proj", is_weight),
            ]);
        }
    }
    pieces.extend(
        ["weight", "bias"].map(|p| piece(format!("transformer.ln_f.{p}"), vec![format!("model.norm.{p}")], true)),
    );
    if !tied {
        pieces.push(piece("lm_head.weight".into(), vec!["lm_head.weight".into()], true));
    }
    pieces
}

pub fn config(c: &GPTConfig) -> Value {
    json!({
        "architectures": ["Starcoder2ForCausalLM"],
        "model_type": MODEL_TYPE,
        "vocab_size": c.vocab_size,
        "hidden_size": c.n_embd,
        "intermediate_size": 4 * c.n_embd,
        "num_hidden_layers": c.n_layer,
        "num_attention_heads": c.n_head,
        "num_key_value_heads": c.n_head,
        "hidden_act": activation_name(c.activation),
        "max_position_embeddings": c.block_size,
        "norm_epsilon": crate::ops::norm::NORM_EPS,
        "rope_parameters": {"rope_type": "default", "rope_theta": ROPE_THETA},
        "sliding_window": null,
        "attention_dropout": c.dropout,
        "residual_dropout": c.dropout,
        "embedding_dropout": c.dropout,
        "use_bias": c.bias,
        "tie_word_embeddings": c.tie_weights,
        "use_cache": true,
        "bos_token_id": null,
        "eos_token_id": null,
        "pad_token_id": null,
        "dtype": "float32",
    })
}

/// Starcoder2's tensors from the run's: row blocks of ours, zeros for a LayerNorm bias it lacks.
pub fn weights(run: &Run) -> Vec<Tensor> {
    let model = run.model();
    let (c, params) = (model.config(), model.params());
    let mut tensors = Vec::new();
    for Piece { ours, theirs, always } in layout(c.n_layer, c.tie_weights) {
        match params.get(&ours) {
            Some(w) => {
                let rows = w.len_of(Axis(0)) / theirs.len();
                for (k, name) in theirs.into_iter().enumerate() {
                    let block = w.slice_axis(Axis(0), Slice::from(k * rows..(k + 1) * rows));
                    tensors.push((name, block.shape().to_vec(), le_bytes(block)));
                }
            }
            None if always => {
                let (shape, zeros) = zero_bias(params, &ours);
                tensors.extend(theirs.into_iter().map(|name| (name, shape.clone(), zeros.clone())));
            }
            None => {}
        }
    }
    tensors
}

/// Our tensors from Starcoder2's (`tensor` gives one's shape and bytes, or None where it has
/// none): linear biases it has none of come back as zeros, which the caller drops with the rest
/// when every bias is zero.
pub fn ours(c: &GPTConfig, tensor: impl Fn(&str) -> Result<Option<(Vec<usize>, Vec<u8>)>>) -> Result<Vec<Tensor>> {
    let mut tensors: Vec<Tensor> = Vec::new();
    for Piece { ours, theirs, always } in layout(c.n_layer, c.tie_weights) {
        let mut shape: Vec<usize> = Vec::new();
        let mut data = Vec::new();
        for name in &theirs {
            match tensor(name)? {
                // Row blocks of one tensor: the same shape after the rows.
                Some((s, d)) if !s.is_empty() && (shape.is_empty() || s[1..] == shape[1..]) => {
                    shape = match shape.first() {
                        Some(&rows) => [&[rows.saturating_add(s[0])], &s[1..]].concat(),
                        None => s,
                    };
                    data.extend(d);
                }
                Some(_) => return Err(bad(format!("has a {name} whose shape does not fit {ours}"))),
                None if always => return Err(bad(format!("has no {name}"))),
                None => {}
            }
        }
        if shape.is_empty() {
            // A linear layer's bias under use_bias=false: zeros as long as its weight's rows (which
            // comes first, and has at least one dimension).
            let weight = tensors.iter().find(|(n, _, _)| *n == ours.replace(".bias", ".weight"));
            let rows = weight.map_or(0, |(_, shape, _)| shape[0]);
            (shape, data) = (vec![rows], vec![0; 4 * rows]);
        }
        tensors.push((ours, shape, data));
    }
    Ok(tensors)
}

/// The run's shape from a Starcoder2 `config.json`, refusing what our model cannot hold.
pub fn config_from_json(c: &Value) -> Result<GPTConfig> {
    let lacks = |why: &str| Error::Format(files::starcoder2_lacks(why));
    let int = |key: &str| count(c, key);
    let (n_embd, n_head) = (int("hidden_size")?, int("num_attention_heads")?);
    if Some(int("intermediate_size")?) != n_embd.checked_mul(4) {
        return Err(lacks("has an MLP other than 4 × hidden_size wide"));
    }
    if int("num_key_value_heads")? != n_head {
        return Err(lacks("shares keys and values between heads (num_key_value_heads)"));
    }
    let rope = c.get("rope_parameters").unwrap_or(c);
    let theta = rope["rope_theta"].as_f64().unwrap_or(ROPE_THETA);
    if theta != ROPE_THETA || !matches!(rope["rope_type"].as_str(), None | Some("default")) {
        return Err(lacks(&format!("turns its rotary positions at another rate ({rope})")));
    }
    let block_size = int("max_position_embeddings")?;
    if c["sliding_window"].as_u64().is_some_and(|w| (w as usize) < block_size) {
        return Err(lacks("attends through a sliding window"));
    }
    Ok(GPTConfig {
        vocab_size: int("vocab_size")?,
        block_size,
        n_layer: int("num_hidden_layers")?,
        n_head,
        n_embd,
        dropout: c["residual_dropout"].as_f64().unwrap_or(0.0) as f32,
        bias: c["use_bias"].as_bool().unwrap_or(true),
        norm: NormKind::LayerNorm,
        activation: activation(&c["hidden_act"])?,
        tie_weights: c["tie_word_embeddings"].as_bool().unwrap_or(true),
        rope: true,
        qk_norm: false,
    })
}
