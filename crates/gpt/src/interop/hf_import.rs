//! A Transformers folder (GPT-2, Starcoder2, or our own modelling code) back to a run. One we exported carries
//! our metadata in `model.safetensors` and comes back with its history; one changed or made in
//! Transformers takes its shape from `config.json` and its tokens from `tokenizer.json`, which
//! must be one of ours (characters, our byte pairs, or a task's symbols). A GPT-2's or Starcoder2's
//! biases come back when any is not zero.

use super::hf::{gpt2_names, CONV1D, OURS, TASK};
use super::hf_remote::{config_from_json, MODEL_TYPE};
use super::hf_shared::{activation, bad, count};
use super::hf_starcoder2;
use super::hf_tokenizer::tokenizer_from_json;
use crate::checkpoint::{serialize, Tensor, FORMAT};
use crate::config::Architecture;
use crate::config::GPTConfig;
use crate::error::Result;
use safetensors::{Dtype, SafeTensors};
use serde_json::Value;
use std::collections::HashMap;

/// Our checkpoint file for Transformers' `model.safetensors`, with its `config.json` and
/// `tokenizer.json` (needed unless we wrote it).
pub fn import(weights: &[u8], config: Option<&[u8]>, tokenizer: Option<&[u8]>) -> Result<Vec<u8>> {
    let file =
        SafeTensors::deserialize(weights).map_err(|e| bad(format!("is not a readable safetensors file: {e}")))?;
    let (_, header) = SafeTensors::read_metadata(weights).map_err(|e| bad(format!("has an unreadable header: {e}")))?;
    let mut meta = header.metadata().clone().unwrap_or_default();
    match meta.remove(OURS) {
        Some(format) => {
            meta.insert("format".into(), format);
        }
        None => meta = foreign(config, tokenizer)?,
    }
    let mut model: GPTConfig =
        serde_json::from_str(meta.get("config").map_or("", String::as_str)).map_err(|e| bad(format!("{e}")))?;
    let f32_data = |name: &str| {
        let t = file.tensor(name).map_err(|_| bad(format!("has no {name}")))?;
        if t.dtype() != Dtype::F32 {
            return Err(bad(format!("stores {name} as {:?}; save it as float32", t.dtype())));
        }
        Ok(t)
    };
    let mut tensors = match Architecture::of(&model) {
        // Our names and layout: the checkpoint's loader checks each tensor against the config.
        Architecture::Ours => {
            let tensors = file
                .names()
                .into_iter()
                .map(|name| f32_data(name).map(|t| (name.to_string(), t.shape().to_vec(), t.data().to_vec())))
                .collect::<Result<Vec<Tensor>>>()?;
            return serialize(&tensors, meta);
        }
        Architecture::Starcoder2 => hf_starcoder2::ours(&model, |name| match file.tensor(name) {
            Ok(_) => f32_data(name).map(|t| Some((t.shape().to_vec(), t.data().to_vec()))),
            Err(_) => Ok(None),
        })?,
        Architecture::Gpt2 => gpt2_tensors(&model, f32_data)?,
    };
    // GPT-2's and Starcoder2's norms always have biases: a run without them exported zeros, which
    // it drops again; a bias made in Transformers keeps them all.
    let is_bias = |name: &str| name.ends_with(".bias");
    if !model.bias
        && tensors.iter().any(|(n, _, d)| is_bias(n) && d.chunks_exact(4).any(|x| x != [0; 4] && x != [0, 0, 0, 0x80]))
    {
        model.bias = true;
        meta.insert("config".into(), serde_json::to_string(&model).expect("plain data serialises"));
    }
    if !model.bias {
        tensors.retain(|(n, _, _)| !is_bias(n));
    }
    serialize(&tensors, meta)
}

/// Our tensors from GPT-2's: the same names, Conv1D weights transposed back.
fn gpt2_tensors<'a>(
    model: &GPTConfig,
    f32_data: impl Fn(&str) -> Result<safetensors::tensor::TensorView<'a>>,
) -> Result<Vec<Tensor>> {
    let mut tensors: Vec<Tensor> = Vec::new();
    for name in gpt2_names(model.n_layer, model.tie_weights) {
        let t = f32_data(&name)?;
        let mut shape = t.shape().to_vec();
        let mut data = t.data().to_vec();
        if CONV1D.iter().any(|l| name.ends_with(&format!("{l}.weight"))) {
            // Conv1D keeps (in, out); ours is (out, in).
            let [rows, cols] = shape[..] else { return Err(bad(format!("has a {name} that is not a matrix"))) };
            let mut t = vec![0u8; data.len()];
            for (i, x) in data.chunks_exact(4).enumerate() {
                let (r, c) = (i / cols, i % cols);
                t[4 * (c * rows + r)..][..4].copy_from_slice(x);
            }
            (shape, data) = (vec![cols, rows], t);
        }
        tensors.push((name, shape, data));
    }
    Ok(tensors)
}

/// The metadata of a model made or changed in Transformers, from its config and tokenizer.
fn foreign(config: Option<&[u8]>, tokenizer: Option<&[u8]>) -> Result<HashMap<String, String>> {
    let (Some(config), Some(tokenizer)) = (config, tokenizer) else {
        return Err(bad("needs its config.json and tokenizer.json too: choose all three files, or the folder zipped"));
    };
    let c: Value = serde_json::from_slice(config).map_err(|e| bad(format!("has an unreadable config.json: {e}")))?;
    let tokenizer: Value =
        serde_json::from_slice(tokenizer).map_err(|e| bad(format!("has an unreadable tokenizer.json: {e}")))?;
    let tokenizer = tokenizer_from_json(&tokenizer)?;
    let model = match c["model_type"].as_str() {
        Some("gpt2") => gpt2_config(&c)?,
        Some(hf_starcoder2::MODEL_TYPE) => hf_starcoder2::config_from_json(&c)?,
        Some(MODEL_TYPE) => config_from_json(&c)?,
        _ => {
            return Err(bad(format!(
                "is a {}, not a GPT-2, a Starcoder2 or the playground's own model",
                c["model_type"]
            )))
        }
    };
    let mut meta = HashMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("config".into(), serde_json::to_string(&model).expect("plain data serialises")),
        ("vocab".into(), tokenizer.to_json()),
    ]);
    if let Some(task) = c.get(TASK) {
        meta.insert("task".into(), task.to_string());
    }
    Ok(meta)
}

/// The shape of a GPT-2 from its `config.json`.
fn gpt2_config(c: &Value) -> Result<GPTConfig> {
    let activation = activation(&c["activation_function"])?;
    let int = |key: &str| count(c, key);
    let n_embd = int("n_embd")?;
    if !(c["n_inner"].is_null() || c["n_inner"].as_u64() == Some(4 * n_embd as u64)) {
        return Err(bad("has an MLP other than 4 × n_embd wide (n_inner)"));
    }
    Ok(GPTConfig {
        vocab_size: int("vocab_size")?,
        block_size: int("n_positions")?,
        n_layer: int("n_layer")?,
        n_head: int("n_head")?,
        n_embd,
        dropout: c["resid_pdrop"].as_f64().unwrap_or(0.0) as f32,
        bias: false,
        activation,
        tie_weights: c["tie_word_embeddings"].as_bool().unwrap_or(true),
        ..Default::default()
    })
}
