//! A sparse autoencoder (or a ReLU transcoder, SAELens's `Transcoder` or, with a skip connection,
//! `SkipTranscoder`: `hook_name` in, `hook_name_out` out) as SAELens saves one: `cfg.json` and `sae_weights.safetensors`, which
//! `SAE.load_from_disk(folder)` loads as it is. The hook name is TransformerLens's, so SAELens runs
//! it on the run's export opened in TransformerLens (`gpt_playground_lens.py`). The decoder's rows
//! are at unit norm, so nothing needs folding. An autoencoder saved so (by us, or by SAELens's
//! `save_inference_model`) comes back for a run of the same shape.

use crate::checkpoint::{le_bytes, serialize, Tensor};
use crate::error::{Error, Result};
use crate::model::HookPoint;
use crate::params::Params;
use crate::sae::{shapes, Architecture, Sae, SaeConfig, SaeRef, JUMP_BANDWIDTH, NAMES};
use crate::words::files;
use ndarray::{ArrayD, IxDyn};
use safetensors::{Dtype, SafeTensors};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The SAELens release whose format this writes (its loader reads `metadata.sae_lens_version`).
const SAE_LENS_VERSION: &str = "6.54.12";

/// The files of the export, each with its name in the folder: `cfg.json` and
/// `sae_weights.safetensors`. `model_name` and `context_size` go in its metadata.
pub fn export_sae(sae: SaeRef, model_name: &str, context_size: usize) -> Result<Vec<(String, Vec<u8>)>> {
    let config = sae.config();
    let (architecture, own) = saelens_kind(config, sae.d_in())?;
    let mut cfg = json!({
        "architecture": architecture,
        "d_in": sae.d_in(),
        "d_sae": sae.d_sae(),
        "dtype": "float32",
        "device": "cpu",
        "apply_b_dec_to_input": !config.is_transcoder(),
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
    if let Some(output) = config.output {
        cfg["metadata"]["hook_name_out"] = json!(output.hook_name());
    }
    let tensors: Vec<Tensor> = config
        .tensors()
        .into_iter()
        .zip(sae.tensors())
        .map(|(k, value)| (NAMES[k].to_string(), value.shape().to_vec(), le_bytes(value)))
        .collect();
    let weights = serialize(&tensors, HashMap::new())?;
    let cfg = serde_json::to_string_pretty(&cfg).expect("a JSON value always serializes");
    Ok(vec![("cfg.json".into(), cfg.into_bytes()), ("sae_weights.safetensors".into(), weights)])
}

/// Whether an autoencoder of `config` can be saved in SAELens's format, or why not (before it
/// trains, so that nothing is trained in vain).
pub fn check_exportable(config: &SaeConfig) -> Result<()> {
    saelens_kind(config, 0).map(|_| ())
}

/// SAELens's architecture for `config` on `d_in` channels, and the settings only it has.
fn saelens_kind(config: &SaeConfig, d_in: usize) -> Result<(&'static str, Value)> {
    Ok(match (config.architecture, config.output) {
        (Architecture::TopK { .. }, Some(_)) => return Err(Error::Config(files::no_topk_transcoder())),
        (Architecture::Relu { .. }, Some(_)) if config.skip => ("skip_transcoder", json!({ "d_out": d_in })),
        (Architecture::Relu { .. }, Some(_)) => ("transcoder", json!({ "d_out": d_in })),
        (Architecture::TopK { k, .. }, None) => ("topk", json!({ "k": k, "rescale_acts_by_decoder_norm": false })),
        (Architecture::Relu { .. }, None) => ("standard", json!({})),
        // BatchTopK and Matryoshka fire above the threshold they learnt, as SAELens saves them.
        (_, None) => ("jumprelu", json!({})),
        (_, Some(_)) => return Err(Error::Config(crate::words::dictionaries::autoencoder_only())),
    })
}

/// An autoencoder SAELens saved (`cfg.json`'s text and `sae_weights.safetensors`' bytes), for a
/// model of `layers` layers and `d_in` channels.
pub fn import_sae(cfg: &str, weights: &[u8], layers: usize, d_in: usize) -> Result<Sae> {
    let bad = |m: String| Error::Format(files::autoencoder(m));
    let cfg: Value = serde_json::from_str(cfg).map_err(|e| bad(format!("cfg.json is not JSON: {e}")))?;
    let number = |key: &str| cfg[key].as_u64().map(|n| n as usize).ok_or_else(|| bad(format!("cfg.json has no {key}")));
    let (file_d_in, d_sae) = (number("d_in")?, number("d_sae")?);
    if file_d_in != d_in || d_sae % d_in != 0 {
        return Err(bad(format!(
            "it reads {file_d_in} channels into {d_sae} features; this model has {d_in} channels"
        )));
    }
    let hook = cfg["metadata"]["hook_name"].as_str().or(cfg["hook_name"].as_str()).unwrap_or_default();
    let parse = |hook: &str| {
        HookPoint::parse(hook).ok_or_else(|| {
            bad(format!(
                "its hook {hook:?} is not blocks.N.hook_resid_post, blocks.N.hook_mlp_out or blocks.N.ln2.hook_normalized"
            ))
        })
    };
    let point = parse(hook)?;
    let kind = cfg["architecture"].as_str();
    let (architecture, output) = match kind {
        Some("topk") => (Architecture::TopK { k: number("k")?, aux_coefficient: 1.0 }, None),
        Some("standard") => (Architecture::Relu { l1_coefficient: 0.0 }, None),
        Some("jumprelu") => (Architecture::JumpRelu { l0_coefficient: 0.0, bandwidth: JUMP_BANDWIDTH }, None),
        Some("transcoder" | "skip_transcoder") => {
            let out = cfg["metadata"]["hook_name_out"].as_str().or(cfg["hook_name_out"].as_str()).unwrap_or_default();
            (Architecture::Relu { l1_coefficient: 0.0 }, Some(parse(out)?))
        }
        other => {
            return Err(bad(format!(
                "its architecture {other:?} is not topk, standard, jumprelu, transcoder or skip_transcoder"
            )))
        }
    };
    let skip = kind == Some("skip_transcoder");
    let config = SaeConfig { point, output, expansion: d_sae / d_in, architecture, dead_tokens: 200_000, skip };
    let file = SafeTensors::deserialize(weights).map_err(|e| bad(format!("the weights are not safetensors: {e}")))?;
    let mut params = Params::default();
    let shapes = shapes(d_in, d_sae);
    for (name, shape) in config.tensors().into_iter().map(|k| (NAMES[k], shapes[k].clone())) {
        let t = file.tensor(name).map_err(|_| bad(format!("it has no tensor {name}")))?;
        if t.dtype() != Dtype::F32 || t.shape() != shape {
            return Err(bad(format!("{name} is {:?} of shape {:?}, not float32 of {shape:?}", t.dtype(), t.shape())));
        }
        let values = t.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        params.names.push(name.to_string());
        params.values.push(ArrayD::from_shape_vec(IxDyn(&shape), values).expect("shape checked above"));
    }
    let sae = Sae::from_params(config, layers, d_in, params)?;
    if let Some(j) =
        (0..d_sae).find(|&j| (sae.direction(j).iter().map(|x| x * x).sum::<f32>().sqrt() - 1.0).abs() > 1e-3)
    {
        return Err(bad(format!(
            "feature {j}'s decoder row is not of unit norm; save it with save_inference_model, or fold_W_dec_norm() first"
        )));
    }
    Ok(sae)
}
