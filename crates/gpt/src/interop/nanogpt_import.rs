//! nanoGPT's `ckpt.pt` back to a run. One we exported carries our metadata in its `config` and
//! comes back whole; one nanoGPT trained on (or made itself) takes its characters from `meta.pkl`
//! and its recipe from its `config`. The text comes back from `train.bin` and `val.bin`.

use super::nanogpt::{parameter_names, OURS};
use super::pickle::Py;
use super::torch;
use crate::checkpoint::{serialize, Tensor, EXP_AVG, EXP_AVG_SQ, FORMAT, LM_HEAD};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::error::{Error, Result};
use crate::tokenizer::{CharTokenizer, Tokenizer};
use crate::words::files;
use std::collections::HashMap;

fn bad(why: impl std::fmt::Display) -> Error {
    Error::Format(files::nanogpt(why.to_string()))
}

/// Our checkpoint file for nanoGPT's `ckpt` (with its `meta.pkl`, needed unless we wrote it).
pub fn import(ckpt: &[u8], meta_pkl: Option<&[u8]>) -> Result<Vec<u8>> {
    let loaded = torch::load(ckpt)?;
    let root = &loaded.value;
    let config = root.get("config");
    let mut meta: HashMap<String, String> = match config.and_then(|c| c.get(OURS)) {
        Some(Py::Dict(items)) => items
            .iter()
            .filter_map(|(k, v)| match (k, v) {
                (Py::Str(k), Py::Str(v)) => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => foreign(root, meta_pkl)?,
    };
    let model_config: GPTConfig = serde_json::from_str(meta.get("config").map_or("", String::as_str))
        .map_err(|e| bad(format!("has an unreadable config: {e}")))?;
    let Some(Py::Dict(state)) = root.get("model") else { return Err(bad("has no model")) };
    // torch.compile saves its parameters under `_orig_mod.`.
    let state: HashMap<&str, &Py> = state
        .iter()
        .filter_map(|(k, v)| if let Py::Str(k) = k { Some((k.trim_start_matches("_orig_mod."), v)) } else { None })
        .collect();
    let names = parameter_names(model_config.n_layer, model_config.bias);
    let mut tensors: Vec<Tensor> = Vec::new();
    let read = |tensors: &mut Vec<Tensor>, name: String, tensor: &Py| -> Result<Vec<usize>> {
        let (shape, bytes) = loaded.tensor(tensor, &name)?;
        tensors.push((name, shape.clone(), bytes.to_vec()));
        Ok(shape)
    };
    let mut shapes = Vec::new();
    for name in names.iter().chain([&LM_HEAD.to_string()]) {
        let tensor = state.get(name.as_str()).ok_or_else(|| bad(format!("has no {name}")))?;
        shapes.push(read(&mut tensors, name.clone(), tensor)?);
    }
    // AdamW's state is in nanoGPT's group order: the decayed (2-D and up) parameters first.
    let optimizer_state = root.get("optimizer").and_then(|o| o.get("state"));
    if let Some(state @ Py::Dict(items)) = optimizer_state.filter(|s| matches!(s, Py::Dict(i) if !i.is_empty())) {
        let decay = (0..names.len()).filter(|&i| shapes[i].len() >= 2);
        let order: Vec<usize> = decay.chain((0..names.len()).filter(|&i| shapes[i].len() < 2)).collect();
        if items.len() != order.len() {
            return Err(bad(format!(
                "has optimizer state for {} tensors, not the model's {}",
                items.len(),
                order.len()
            )));
        }
        for (slot, &i) in order.iter().enumerate() {
            let moments = state.at(slot as i64).ok_or_else(|| bad(format!("has no optimizer state {slot}")))?;
            for (prefix, key) in [(EXP_AVG, "exp_avg"), (EXP_AVG_SQ, "exp_avg_sq")] {
                let tensor = moments.get(key).ok_or_else(|| bad(format!("has no {key} for {}", names[i])))?;
                read(&mut tensors, format!("{prefix}{}", names[i]), tensor)?;
            }
        }
        if let Some(step) = state.at(0).and_then(|m| m.get("step")) {
            let t = match step {
                Py::Tensor { .. } => {
                    let bytes = loaded.tensor(step, "optimizer step")?.1;
                    bytes.get(..4).map_or(0.0, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])) as i64
                }
                other => other.as_int().unwrap_or(0),
            };
            meta.insert("optimizer_step".into(), t.to_string());
        }
    }
    if let Some(step) = root.get("iter_num").and_then(Py::as_int) {
        meta.insert("step".into(), step.to_string());
    }
    serialize(&tensors, meta)
}

/// The metadata of a checkpoint nanoGPT made: characters from `meta.pkl`, the model from
/// `model_args`, the recipe from `config`.
fn foreign(root: &Py, meta_pkl: Option<&[u8]>) -> Result<HashMap<String, String>> {
    let meta_pkl = meta_pkl.ok_or_else(|| {
        bad("does not say its characters: choose its meta.pkl (data/NAME/meta.pkl in nanoGPT) with it; \
             a GPT-2 byte-pair model is not read")
    })?;
    let tokenizer = Tokenizer::Char(characters(&super::unpickle::unpickle(meta_pkl)?)?);
    let args = root.get("model_args").ok_or_else(|| bad("has no model_args"))?;
    let int = |key: &str| args.get(key).and_then(Py::as_int).ok_or_else(|| bad(format!("has no model_args {key}")));
    let model = GPTConfig {
        vocab_size: int("vocab_size")? as usize,
        block_size: int("block_size")? as usize,
        n_layer: int("n_layer")? as usize,
        n_head: int("n_head")? as usize,
        n_embd: int("n_embd")? as usize,
        bias: matches!(args.get("bias"), Some(Py::Bool(true))),
        dropout: match args.get("dropout") {
            Some(Py::Float(d)) => *d as f32,
            _ => 0.0,
        },
        ..Default::default()
    };
    // nanoGPT's config globals that share a name with our TrainConfig's fields are its recipe.
    let fields = serde_json::to_value(TrainConfig::default()).expect("plain data serialises");
    let recipe: serde_json::Map<String, serde_json::Value> = fields
        .as_object()
        .expect("a struct serialises as an object")
        .keys()
        .filter_map(|k| {
            let value = match root.get("config")?.get(k)? {
                Py::Int(i) => serde_json::json!(i),
                Py::Float(f) => serde_json::json!(f),
                Py::Bool(b) => serde_json::json!(b),
                _ => return None,
            };
            Some((k.clone(), value))
        })
        .collect();
    Ok(HashMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("config".into(), serde_json::to_string(&model).expect("plain data serialises")),
        ("vocab".into(), tokenizer.to_json()),
        ("train_config".into(), serde_json::Value::Object(recipe).to_string()),
    ]))
}

/// The character vocabulary of nanoGPT's `meta.pkl` (`itos`: id → character).
pub fn characters(meta: &Py) -> Result<CharTokenizer> {
    let bad = |why: &str| Error::Format(files::meta(why));
    let n = meta.get("vocab_size").and_then(Py::as_int).ok_or_else(|| bad("has no vocab_size"))?;
    let itos = meta.get("itos").ok_or_else(|| bad("has no itos: it is not a character vocabulary"))?;
    let chars = (0..n)
        .map(|i| match itos.at(i) {
            Some(Py::Str(s)) if s.chars().count() == 1 => Ok(s.chars().next().expect("one character")),
            _ => Err(bad(&format!("has no single character for token {i}"))),
        })
        .collect::<Result<Vec<char>>>()?;
    CharTokenizer::from_tokens(chars)
}

/// The text of nanoGPT's `train.bin` and `val.bin` (uint16 ids) in `meta.pkl`'s characters.
pub fn text(meta_pkl: &[u8], bins: &[&[u8]]) -> Result<String> {
    let chars = characters(&super::unpickle::unpickle(meta_pkl)?)?;
    let tokens = chars.tokens();
    let mut text = String::with_capacity(bins.iter().map(|b| b.len() / 2).sum());
    for bin in bins {
        for pair in bin.chunks_exact(2) {
            let id = u16::from_le_bytes([pair[0], pair[1]]) as usize;
            let c = tokens.get(id).ok_or_else(|| Error::Format(files::token_beyond_meta(id, tokens.len())))?;
            text.push(*c);
        }
    }
    Ok(text)
}
