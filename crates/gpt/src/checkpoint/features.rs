//! A run's sparse autoencoder in its checkpoint: its weights under `sae.` (`sae.W_enc`, …), its
//! optimiser's state under `sae.optimizer.`, and once the run's model has trained past the one
//! it reads, that model's weights under `sae.model.`; its settings, steps, random state and
//! counts of silence under the metadata's `sae`. So it comes back as it was, to train on bit for
//! bit, whatever the run's model did since.

use super::tensors::{optimizer_tensors, param_tensors, read_params, restore_optimizer, to_json, Tensor};
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::optim::Optimizer;
use crate::params::Params;
use crate::sae::{Sae, SavedSae};
use safetensors::SafeTensors;
use std::collections::HashMap;

/// What every tensor of the autoencoder goes after.
pub(super) const SAE: &str = "sae.";
const OPTIMIZER: &str = "sae.optimizer.";
const MODEL: &str = "sae.model.";

/// An autoencoder as a checkpoint writes it.
pub struct FeaturesSnapshot<'a> {
    pub saved: SavedSae,
    pub sae: &'a Params,
    pub optimizer: &'a dyn Optimizer,
    /// The model it reads, when that is no longer the run's.
    pub model: Option<&'a Params>,
}

/// An autoencoder as a checkpoint brings it back.
pub struct SavedFeatures {
    pub saved: SavedSae,
    pub sae: Params,
    pub optimizer: Box<dyn Optimizer>,
    /// The model it reads, when the file keeps one apart from the run's.
    pub model: Option<GPT>,
}

pub(super) fn write(features: &FeaturesSnapshot, tensors: &mut Vec<Tensor>, metadata: &mut HashMap<String, String>) {
    tensors.extend(param_tensors(features.sae, SAE));
    tensors.extend(optimizer_tensors(features.optimizer, OPTIMIZER));
    if let Some(model) = features.model {
        tensors.extend(param_tensors(model, MODEL));
    }
    metadata.insert("sae".into(), to_json(&features.saved));
}

/// The autoencoder `saved` describes, read from `file`, checked against the run's `model`. A file
/// written before its optimiser's state was kept gives a fresh optimiser.
pub(super) fn read(file: &SafeTensors, saved: Option<SavedSae>, model: &GPT) -> Result<Option<SavedFeatures>> {
    let Some(saved) = saved else { return Ok(None) };
    let c = model.config();
    let mut sae = Sae::new(saved.config, c.n_layer, c.n_embd, 0)?.params().clone();
    read_params(file, SAE, &mut sae).map_err(|e| Error::Format(format!("the checkpoint's autoencoder: {e}")))?;
    let kind = saved.train.kind().ok_or_else(|| {
        Error::Format(format!(
            "the checkpoint's autoencoder trains by an unknown optimizer {:?}",
            saved.train.optimizer
        ))
    })?;
    let mut optimizer = (kind.create)(&sae, &saved.train.hyper());
    if file.iter().any(|(name, _)| name.starts_with(OPTIMIZER)) {
        restore_optimizer(file, OPTIMIZER, optimizer.as_mut())?;
        optimizer.set_steps(saved.optimizer_steps);
    }
    let kept = file.iter().any(|(name, _)| name.starts_with(MODEL));
    let model = kept
        .then(|| -> Result<GPT> {
            let mut copy = GPT::new(c.clone(), 0)?;
            read_params(file, MODEL, copy.params_mut())?;
            Ok(copy)
        })
        .transpose()?;
    Ok(Some(SavedFeatures { saved, sae, optimizer, model }))
}
