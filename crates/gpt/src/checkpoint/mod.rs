//! Checkpoints: one safetensors file holds a whole training state. Weights sit under nanoGPT's
//! state_dict names (so PyTorch loads them), the optimiser's state under `optimizer.` and the
//! names it gives it (AdamW's moments as `optimizer.exp_avg.*` and `optimizer.exp_avg_sq.*`,
//! Muon's momentum as `optimizer.muon.*`), and the header's `__metadata__` carries `config`
//! (nanoGPT's GPTConfig fields plus ours), `vocab`, the training settings, step, RNG, loss
//! history, the last sampling settings and, for a task's run, its `task` (and for a model built
//! by hand, its `known_circuits`); a sparse autoencoder trained on the model goes under `sae`
//! (`features.rs`).

mod features;
mod tensors;
pub use features::{FeaturesSnapshot, SavedFeatures};
pub(crate) use tensors::{le_bytes, serialize, Tensor};
use tensors::{optimizer_tensors, param_tensors, read_tensor, restore_optimizer, to_json};

use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::data::TaskConfig;
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::optim::Optimizer;
use crate::rng::Rng;
use crate::sample::SampleConfig;
use crate::tokenizer::Tokenizer;
use crate::train::History;
use crate::words::files;
use crate::work::edge_plan::Corruption;
use safetensors::SafeTensors;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub(crate) const FORMAT: &str = "gpt-playground/1";
pub(crate) const EXP_AVG: &str = "optimizer.exp_avg.";
pub(crate) const EXP_AVG_SQ: &str = "optimizer.exp_avg_sq.";
/// What the optimiser's own names for its state go after.
const OPTIMIZER: &str = "optimizer.";
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
    /// A sparse autoencoder on the model, if one was trained.
    pub features: Option<SavedFeatures>,
    /// A transcoder per MLP, if they were trained.
    pub transcoders: Option<SavedFeatures>,
    /// The built model it is, by name, if it was built by hand (`built/`).
    pub built: Option<String>,
    /// The circuits it was built with, if it was built by hand.
    pub known: Vec<KnownCircuit>,
}

/// A circuit known by construction (a model built by hand, `built/`): the edges, by the edge
/// graph's names, that carry the answer's change under `corruption`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct KnownCircuit {
    pub corruption: Corruption,
    pub edges: Vec<String>,
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
    pub features: Option<FeaturesSnapshot<'a>>,
    pub transcoders: Option<FeaturesSnapshot<'a>>,
    pub built: Option<&'a str>,
    pub known: &'a [KnownCircuit],
}

/// The file for a run's whole state.
pub fn save(run: &Snapshot) -> Result<Vec<u8>> {
    let model = run.model;
    let params = model.params();
    let mut tensors = param_tensors(params, "");
    if model.config().tie_weights {
        // nanoGPT's state_dict lists the tied tensor under both names; strict loading wants both.
        let wte = params.get("transformer.wte.weight").expect("every model has wte");
        tensors.push((LM_HEAD.into(), wte.shape().to_vec(), le_bytes(wte)));
    }
    tensors.extend(optimizer_tensors(run.optimizer, OPTIMIZER));
    let mut metadata = metadata(run);
    if let Some(features) = &run.features {
        features::write(features::SAE, features, &mut tensors, &mut metadata);
    }
    if let Some(transcoders) = &run.transcoders {
        features::write(features::TRANSCODERS, transcoders, &mut tensors, &mut metadata);
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
    if let Some(built) = run.built {
        metadata.insert("built".into(), built.into());
    }
    if !run.known.is_empty() {
        metadata.insert("known_circuits".into(), to_json(&run.known));
    }
    metadata
}

/// Reads a checkpoint, checking everything before building anything: a truncated or corrupt
/// file, a missing tensor, a wrong shape or a config that does not fit the tensors is an error.
pub fn load(bytes: &[u8]) -> Result<Checkpoint> {
    let bad = Error::Format;
    let file = SafeTensors::deserialize(bytes).map_err(|e| bad(files::not_safetensors(e.to_string())))?;
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| bad(files::header(e.to_string())))?;
    let meta = header.metadata().clone().unwrap_or_default();
    let field = |key: &str| meta.get(key).map(String::as_str);
    let config: GPTConfig = parse(field("config"), "config")?.ok_or_else(|| bad(files::no_config()))?;
    let vocab = field("vocab").ok_or_else(|| bad(files::no_vocab()))?;
    let tokenizer = Tokenizer::from_json(vocab)?;
    if config.vocab_size != tokenizer.vocab_size() {
        return Err(bad(files::vocab_mismatch(config.vocab_size, tokenizer.vocab_size())));
    }
    // Every weight is stored, so a config that needs more than the file holds is refused before
    // anything that size is allocated.
    if config.param_count().saturating_mul(4) > bytes.len() {
        return Err(bad(files::cut_short(config.param_count(), bytes.len())));
    }
    let mut model = GPT::new(config, 0).map_err(|e| bad(files::invalid_config(e)))?;
    let names = model.params().names.clone();
    let tensor = |name: &str, want: &[usize]| read_tensor(&file, name, want);
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
    let kind = train.kind().ok_or_else(|| bad(files::unknown_optimizer(format!("{:?}", train.optimizer))))?;
    let mut optimizer = (kind.create)(model.params(), &train.hyper());
    let state_names: Vec<String> = optimizer.state().into_iter().map(|(n, _)| n).collect();
    let is_param = |n: &str| names.iter().any(|p| p == n);
    for (name, _) in file.iter() {
        let moment = name.strip_prefix(OPTIMIZER).is_some_and(|n| state_names.iter().any(|s| s == n));
        // nanoGPT registers a causal-mask buffer `attn.bias` when PyTorch lacks flash attention.
        let mask_buffer = name.ends_with(".attn.bias");
        let autoencoder =
            [features::SAE, features::TRANSCODERS].iter().any(|p| p.holds(name) && meta.contains_key(p.key));
        if !(is_param(name) || name == LM_HEAD || moment || mask_buffer || autoencoder) {
            return Err(bad(files::unused_tensor(name)));
        }
    }
    // A file with no optimiser state (written by PyTorch) starts a fresh one.
    let has_state = file.iter().any(|(name, _)| name.starts_with(OPTIMIZER));
    let optimizer = if has_state {
        restore_optimizer(&file, OPTIMIZER, optimizer.as_mut())?;
        optimizer.set_steps(parse(field("optimizer_step"), "optimizer_step")?.unwrap_or(0));
        Some(optimizer)
    } else {
        None
    };
    let features = features::read(features::SAE, &file, parse(field("sae"), "sae")?, &model)?;
    let transcoders = parse(field("transcoders"), "transcoders")?;
    let transcoders = features::read(features::TRANSCODERS, &file, transcoders, &model)?;
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
        transcoders,
        built: field("built").map(str::to_string),
        known: parse(field("known_circuits"), "known_circuits")?.unwrap_or_default(),
    })
}

/// The JSON metadata value `text`, if present.
fn parse<T: DeserializeOwned>(text: Option<&str>, key: &str) -> Result<Option<T>> {
    text.map(|t| serde_json::from_str(t).map_err(|e| Error::Format(files::invalid_key(key, e.to_string())))).transpose()
}
