//! Checkpoints: one safetensors file holds a whole training state. Weights sit under nanoGPT's
//! state_dict names (so PyTorch loads them), the optimiser's state under `optimizer.` and the
//! names it gives it (AdamW's moments as `optimizer.exp_avg.*` and `optimizer.exp_avg_sq.*`,
//! Muon's momentum as `optimizer.muon.*`), and the header's `__metadata__` carries `config`
//! (nanoGPT's GPTConfig fields plus ours), `vocab`, the training settings, step, RNG, loss
//! history, the last sampling settings and, for a task's run, its `task`.

use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::data::TaskConfig;
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::optim::Optimizer;
use crate::params::Params;
use crate::rng::Rng;
use crate::sae::SavedSae;
use crate::sample::SampleConfig;
use crate::tokenizer::Tokenizer;
use crate::train::History;
use ndarray::{ArrayD, IxDyn};
use safetensors::{Dtype, SafeTensors};
use serde::de::DeserializeOwned;
use std::collections::HashMap;

pub(crate) const FORMAT: &str = "gpt-playground/1";
pub(crate) const EXP_AVG: &str = "optimizer.exp_avg.";
pub(crate) const EXP_AVG_SQ: &str = "optimizer.exp_avg_sq.";
/// What the optimiser's own names for its state go after.
const OPTIMIZER: &str = "optimizer.";
/// What a sparse autoencoder's weights go after (`sae.W_enc`), its state under `sae` in the metadata.
const SAE: &str = "sae.";
/// nanoGPT's state_dict name for the output projection, the token embedding itself when tied.
pub(crate) const LM_HEAD: &str = "lm_head.weight";

/// A loaded checkpoint: a model and, when the file has them, the optimiser state and training
/// position. Files written by PyTorch may hold only weights, `config` and `vocab`.
/// Opening a run (`run/`) is the usual way in.
pub struct Checkpoint {
    pub model: GPT,
    pub tokenizer: Tokenizer,
    pub train: TrainConfig,
    pub optimizer: Option<Box<dyn Optimizer>>,
    pub step: usize,
    pub rng: Option<Rng>,
    pub history: History,
    /// The last generation's prompt and settings, if the model was sampled from.
    pub sampling: Option<SampleConfig>,
    /// The task the run trains on, if it trains on one.
    pub task: Option<TaskConfig>,
    /// A sparse autoencoder on the model, if one was trained: its state and weights.
    pub features: Option<(SavedSae, Params)>,
}

/// `values` as little-endian f32 bytes, in the order given (an array's logical order).
pub(crate) fn le_bytes<'a>(values: impl IntoIterator<Item = &'a f32>) -> Vec<u8> {
    values.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A tensor to write: name, shape and little-endian f32 bytes.
pub(crate) type Tensor = (String, Vec<usize>, Vec<u8>);

/// One safetensors file of f32 `tensors` and string `metadata` (ours, and the Transformers export's).
pub(crate) fn serialize(tensors: &[Tensor], metadata: HashMap<String, String>) -> Result<Vec<u8>> {
    let views = tensors
        .iter()
        .map(|(name, shape, data)| {
            Ok((name.as_str(), safetensors::tensor::TensorView::new(Dtype::F32, shape.clone(), data)?))
        })
        .collect::<std::result::Result<Vec<_>, safetensors::SafeTensorError>>()
        .and_then(|views| safetensors::serialize(views, Some(metadata)));
    views.map_err(|e| Error::Format(format!("could not write the safetensors file: {e}")))
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

/// A run's whole state, as a checkpoint writes it (a run's `snapshot`).
pub struct Snapshot<'a> {
    pub model: &'a GPT,
    pub tokenizer: &'a Tokenizer,
    pub train: &'a TrainConfig,
    pub optimizer: &'a dyn Optimizer,
    pub step: usize,
    pub rng: &'a Rng,
    pub history: &'a History,
    pub sampling: Option<&'a SampleConfig>,
    pub task: Option<&'a TaskConfig>,
    pub features: Option<(SavedSae, &'a Params)>,
}

/// The file for a run's whole state.
pub fn save(run: &Snapshot) -> Result<Vec<u8>> {
    let model = run.model;
    let params = model.params();
    let mut tensors: Vec<Tensor> = Vec::new();
    for (name, value) in params.names.iter().zip(&params.values) {
        tensors.push((name.clone(), value.shape().to_vec(), le_bytes(value)));
    }
    if model.config().tie_weights {
        // nanoGPT's state_dict lists the tied tensor under both names; strict loading wants both.
        let wte = params.get("transformer.wte.weight").expect("every model has wte");
        tensors.push((LM_HEAD.into(), wte.shape().to_vec(), le_bytes(wte)));
    }
    for (name, value) in run.optimizer.state() {
        tensors.push((format!("{OPTIMIZER}{name}"), value.shape().to_vec(), le_bytes(value)));
    }
    let mut metadata = metadata(run);
    if let Some((saved, params)) = &run.features {
        for (name, value) in params.names.iter().zip(&params.values) {
            tensors.push((format!("{SAE}{name}"), value.shape().to_vec(), le_bytes(value)));
        }
        metadata.insert("sae".into(), to_json(saved));
    }
    serialize(&tensors, metadata)
}

/// The header's metadata for a run: everything but the tensors (a nanoGPT export carries it too).
pub fn metadata(run: &Snapshot) -> HashMap<String, String> {
    let mut metadata = HashMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("config".into(), to_json(run.model.config())),
        ("vocab".into(), run.tokenizer.to_json()),
        ("train_config".into(), to_json(run.train)),
        ("step".into(), run.step.to_string()),
        ("optimizer_step".into(), run.optimizer.steps().to_string()),
        ("rng".into(), to_json(run.rng)),
        ("history".into(), to_json(run.history)),
    ]);
    if let Some(sampling) = run.sampling {
        metadata.insert("sampling".into(), to_json(sampling));
    }
    if let Some(task) = run.task {
        metadata.insert("task".into(), to_json(task));
    }
    metadata
}

/// Reads a checkpoint, checking everything before building anything: a truncated or corrupt
/// file, a missing tensor, a wrong shape or a config that does not fit the tensors is an error.
pub fn load(bytes: &[u8]) -> Result<Checkpoint> {
    let bad = |m: String| Error::Format(m);
    let file = SafeTensors::deserialize(bytes)
        .map_err(|e| bad(format!("this file is not a readable checkpoint (safetensors): {e}")))?;
    let (_, header) =
        SafeTensors::read_metadata(bytes).map_err(|e| bad(format!("the checkpoint's header is unreadable: {e}")))?;
    let meta = header.metadata().clone().unwrap_or_default();
    let field = |key: &str| meta.get(key).map(String::as_str);
    let config: GPTConfig = parse(field("config"), "config")?
        .ok_or_else(|| bad("the checkpoint has no `config` in its metadata, so its architecture is unknown".into()))?;
    let vocab = field("vocab")
        .ok_or_else(|| bad("the checkpoint has no `vocab` in its metadata, so its tokens are unknown".into()))?;
    let tokenizer = Tokenizer::from_json(vocab)?;
    if config.vocab_size != tokenizer.vocab_size() {
        return Err(bad(format!(
            "the config says vocab_size {} but the vocab lists {} tokens",
            config.vocab_size,
            tokenizer.vocab_size()
        )));
    }
    // Every weight is stored, so a config that needs more than the file holds is refused before
    // anything that size is allocated.
    if config.param_count().saturating_mul(4) > bytes.len() {
        return Err(bad(format!(
            "the config describes {} parameters, more than this {}-byte file holds: it is cut short or its header was edited",
            config.param_count(),
            bytes.len()
        )));
    }
    let mut model = GPT::new(config, 0).map_err(|e| bad(format!("the checkpoint's config is invalid: {e}")))?;
    let names = model.params().names.clone();
    let tensor = |name: &str, want: &[usize]| -> Result<ArrayD<f32>> {
        let t = file.tensor(name).map_err(|_| bad(format!("the checkpoint has no tensor {name}")))?;
        if t.dtype() != Dtype::F32 {
            return Err(bad(format!("{name} is stored as {:?}; save the weights as float32", t.dtype())));
        }
        if t.shape() != want {
            return Err(bad(format!("{name} has shape {:?}, but the config needs {want:?}", t.shape())));
        }
        let values = t.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        Ok(ArrayD::from_shape_vec(IxDyn(want), values).expect("length checked by safetensors"))
    };
    for (i, name) in names.iter().enumerate() {
        let shape = model.params().values[i].shape().to_vec();
        // A tied embedding saved only as lm_head.weight (safetensors' save_model keeps one name).
        let stored = match name.as_str() {
            "transformer.wte.weight" if model.config().tie_weights && file.tensor(name).is_err() => LM_HEAD,
            _ => name,
        };
        model.params_mut().set(name, tensor(stored, &shape)?)?;
    }
    let train: TrainConfig = parse(field("train_config"), "train_config")?.unwrap_or_default();
    let kind =
        train.kind().ok_or_else(|| bad(format!("the checkpoint's optimizer {:?} is unknown", train.optimizer)))?;
    let mut optimizer = (kind.create)(model.params(), &train.hyper());
    let state_names: Vec<String> = optimizer.state().into_iter().map(|(n, _)| n).collect();
    let is_param = |n: &str| names.iter().any(|p| p == n);
    for (name, _) in file.iter() {
        let moment = name.strip_prefix(OPTIMIZER).is_some_and(|n| state_names.iter().any(|s| s == n));
        // nanoGPT registers a causal-mask buffer `attn.bias` when PyTorch lacks flash attention.
        let mask_buffer = name.ends_with(".attn.bias");
        let autoencoder = name.starts_with(SAE) && meta.contains_key("sae");
        if !(is_param(name) || name == LM_HEAD || moment || mask_buffer || autoencoder) {
            return Err(bad(format!("the checkpoint has a tensor {name} that this model does not use")));
        }
    }
    // A file with no optimiser state (written by PyTorch) starts a fresh one.
    let has_state = file.iter().any(|(name, _)| name.starts_with(OPTIMIZER));
    let optimizer = if has_state {
        let saved = |name: &str, shape: &[usize]| -> Result<Option<ArrayD<f32>>> {
            let key = format!("{OPTIMIZER}{name}");
            file.tensor(&key).ok().map(|_| tensor(&key, shape)).transpose()
        };
        optimizer.restore(&saved)?;
        optimizer.set_steps(parse(field("optimizer_step"), "optimizer_step")?.unwrap_or(0));
        Some(optimizer)
    } else {
        None
    };
    let features = features(&file, parse(field("sae"), "sae")?, &model)?;
    Ok(Checkpoint {
        model,
        tokenizer,
        train,
        optimizer,
        step: parse(field("step"), "step")?.unwrap_or(0),
        rng: parse(field("rng"), "rng")?,
        history: parse(field("history"), "history")?.unwrap_or_default(),
        sampling: parse(field("sampling"), "sampling")?,
        task: parse(field("task"), "task")?,
        features,
    })
}

/// The autoencoder `saved` describes, its weights read from `file`, checked against `model`.
fn features(file: &SafeTensors, saved: Option<SavedSae>, model: &GPT) -> Result<Option<(SavedSae, Params)>> {
    let Some(saved) = saved else { return Ok(None) };
    let c = model.config();
    let fresh = crate::sae::Sae::new(saved.config, c.n_layer, c.n_embd, 0)?;
    let mut params = fresh.params().clone();
    for (name, value) in params.names.iter().zip(params.values.iter_mut()) {
        let key = format!("{SAE}{name}");
        let t = file.tensor(&key).map_err(|_| Error::Format(format!("the checkpoint's autoencoder has no {key}")))?;
        if t.dtype() != Dtype::F32 || t.shape() != value.shape() {
            return Err(Error::Format(format!("{key} is not float32 of shape {:?}", value.shape())));
        }
        let values = t.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        *value = ArrayD::from_shape_vec(IxDyn(value.shape()), values).expect("length checked by safetensors");
    }
    Ok(Some((saved, params)))
}

/// The JSON metadata value `text`, if present.
fn parse<T: DeserializeOwned>(text: Option<&str>, key: &str) -> Result<Option<T>> {
    text.map(|t| {
        serde_json::from_str(t).map_err(|e| Error::Format(format!("the checkpoint's `{key}` is invalid: {e}")))
    })
    .transpose()
}
