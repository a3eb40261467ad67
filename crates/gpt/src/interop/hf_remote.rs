//! The Transformers export of a run GPT-2 cannot hold (rotary positions, QK-norm, RMSNorm): our
//! own modelling code (`python/modeling_gpt_playground.py`, loaded with `trust_remote_code=True`)
//! with the run's weights under nanoGPT's names and layout, unchanged, and `config.json` holding
//! the run's `GPTConfig` fields.

use crate::checkpoint::{le_bytes, Tensor};
use crate::config::GPTConfig;
use crate::error::{Error, Result};
use crate::words::files;
use crate::Run;
use serde_json::{json, Value};
use std::collections::HashMap;

pub const MODELING_FILE: &str = "modeling_gpt_playground.py";
pub const MODELING: &str = include_str!("python/modeling_gpt_playground.py");
pub const MODEL_TYPE: &str = "gpt_playground";

/// `config.json`: Transformers' keys, then the run's own settings, which the modelling code reads.
pub fn config(c: &GPTConfig) -> Value {
    let mut config = json!({
        "architectures": ["GptPlaygroundForCausalLM"],
        "model_type": MODEL_TYPE,
        "auto_map": {
            "AutoConfig": "modeling_gpt_playground.GptPlaygroundConfig",
            "AutoModelForCausalLM": "modeling_gpt_playground.GptPlaygroundForCausalLM",
        },
        "tie_word_embeddings": c.tie_weights,
        "bos_token_id": null,
        "eos_token_id": null,
        "pad_token_id": null,
        "dtype": "float32",
    });
    let Value::Object(settings) = serde_json::to_value(c).expect("plain data serialises") else {
        unreachable!("a config is a JSON object")
    };
    config.as_object_mut().expect("an object").extend(settings);
    config
}

/// The run's settings back from a `config.json` that [`config`] wrote (or Transformers saved again).
pub fn config_from_json(c: &Value) -> Result<GPTConfig> {
    let fields = serde_json::to_value(GPTConfig::default()).expect("plain data serialises");
    let ours: serde_json::Map<String, Value> = fields
        .as_object()
        .expect("an object")
        .keys()
        .filter_map(|key| Some((key.clone(), c.get(key)?.clone())))
        .collect();
    serde_json::from_value(Value::Object(ours)).map_err(|e| Error::Format(files::hf_config(e.to_string())))
}

/// `model.safetensors`: the weights under our names (a tied embedding once, as `transformer.wte`),
/// with the run's `metadata`.
pub fn weights(run: &Run, metadata: HashMap<String, String>) -> Result<Vec<u8>> {
    let params = run.model().params();
    let tensors: Vec<Tensor> = params
        .names
        .iter()
        .zip(&params.values)
        .map(|(name, value)| (name.clone(), value.shape().to_vec(), le_bytes(value)))
        .collect();
    crate::checkpoint::serialize(&tensors, metadata)
}
