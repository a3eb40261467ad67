//! A sparse autoencoder as SAELens saves one: `cfg.json` and `sae_weights.safetensors`, which
//! `SAE.load_from_disk(folder)` loads as it is. The hook name is TransformerLens's, so SAELens runs
//! it on the run's export opened in TransformerLens (`gpt_playground_lens.py`). The decoder's rows
//! are at unit norm, so nothing needs folding.

use crate::checkpoint::{le_bytes, serialize, Tensor};
use crate::error::Result;
use crate::sae::{Architecture, Sae, NAMES};
use serde_json::json;
use std::collections::HashMap;

/// The SAELens release whose format this writes (its loader reads `metadata.sae_lens_version`).
const SAE_LENS_VERSION: &str = "6.54.12";

/// The files of the export, each with its name in the folder: `cfg.json` and
/// `sae_weights.safetensors`. `model_name` and `context_size` go in its metadata.
pub fn export_sae(sae: &Sae, model_name: &str, context_size: usize) -> Result<Vec<(String, Vec<u8>)>> {
    let config = sae.config();
    let (architecture, own) = match config.architecture {
        Architecture::TopK { k, .. } => ("topk", json!({ "k": k, "rescale_acts_by_decoder_norm": false })),
        Architecture::Relu { .. } => ("standard", json!({})),
    };
    let mut cfg = json!({
        "architecture": architecture,
        "d_in": sae.d_in(),
        "d_sae": sae.d_sae(),
        "dtype": "float32",
        "device": "cpu",
        "apply_b_dec_to_input": true,
        "normalize_activations": "none",
        "reshape_activations": "none",
        "metadata": {
            "sae_lens_version": SAE_LENS_VERSION,
            "model_name": model_name,
            "hook_name": config.point.hook_name(),
            "hook_head_index": null,
            "prepend_bos": false,
            "context_size": context_size,
            "trained_by": "gpt-playground",
        },
    });
    if let (Some(cfg), Some(own)) = (cfg.as_object_mut(), own.as_object()) {
        cfg.extend(own.clone());
    }
    let tensors: Vec<Tensor> = NAMES
        .iter()
        .map(|&name| {
            let value = sae.params().get(name).expect("an autoencoder has its four tensors");
            (name.to_string(), value.shape().to_vec(), le_bytes(value))
        })
        .collect();
    let weights = serialize(&tensors, HashMap::new())?;
    let cfg = serde_json::to_string_pretty(&cfg).expect("a JSON value always serializes");
    Ok(vec![("cfg.json".into(), cfg.into_bytes()), ("sae_weights.safetensors".into(), weights)])
}
