//! A run's sparse autoencoder in its checkpoint: its weights under `sae.` (`sae.W_enc`, …), its
//! optimiser's state under `sae.optimizer.`, and once the run's model has trained past the one
//! it reads, that model's weights under `sae.model.`; its settings, steps, random state and
//! counts of silence under the metadata's `sae`. So it comes back as it was, to train on bit for
//! bit, whatever the run's model did since. A run's transcoders are kept the same way under
//! `transcoders` (`transcoders.blocks.0.W_enc`, …).

use super::tensors::{optimizer_tensors, param_tensors, read_params, restore_optimizer, to_json, Tensor};
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::optim::Optimizer;
use crate::params::Params;
use crate::sae::{Sae, SaeConfig, SavedSae, Transcoders};
use crate::words::files;
use safetensors::SafeTensors;
use std::collections::HashMap;

/// Where a checkpoint keeps a run's dictionaries of features: the metadata's key, which every
/// tensor's name begins with too (then `.`).
#[derive(Clone, Copy)]
pub(super) struct Place {
    pub(super) key: &'static str,
    /// Fresh weights of the kind kept here, for a model of so many layers and channels.
    fresh: fn(SaeConfig, usize, usize) -> Result<Params>,
}

/// The autoencoder's place.
pub(super) const SAE: Place =
    Place { key: "sae", fresh: |config, layers, d| Ok(Sae::new(config, layers, d, 0)?.params().clone()) };
/// The transcoders' place.
pub(super) const TRANSCODERS: Place = Place {
    key: "transcoders",
    fresh: |config, layers, d| Ok(Transcoders::new(config, layers, d, 0)?.params().clone()),
};

impl Place {
    fn prefix(self, part: &str) -> String {
        format!("{}.{part}", self.key)
    }

    /// Whether a tensor is kept here.
    pub(super) fn holds(self, name: &str) -> bool {
        name.starts_with(&self.prefix(""))
    }
}

/// An autoencoder (or transcoders) as a checkpoint writes it.
pub struct FeaturesSnapshot<'a> {
    pub saved: SavedSae,
    pub sae: &'a Params,
    pub optimizer: &'a dyn Optimizer,
    /// The model it reads, when that is no longer the run's.
    pub model: Option<&'a Params>,
}

/// An autoencoder (or transcoders) as a checkpoint brings it back.
pub struct SavedFeatures {
    pub saved: SavedSae,
    pub sae: Params,
    pub optimizer: Box<dyn Optimizer>,
    /// The model it reads, when the file keeps one apart from the run's.
    pub model: Option<GPT>,
}

pub(super) fn write(
    place: Place,
    features: &FeaturesSnapshot,
    tensors: &mut Vec<Tensor>,
    metadata: &mut HashMap<String, String>,
) {
    tensors.extend(param_tensors(features.sae, &place.prefix("")));
    tensors.extend(optimizer_tensors(features.optimizer, &place.prefix("optimizer.")));
    if let Some(model) = features.model {
        tensors.extend(param_tensors(model, &place.prefix("model.")));
    }
    metadata.insert(place.key.into(), to_json(&features.saved));
}

/// The autoencoder (or transcoders) `saved` describes, kept at `place` in `file`, checked against
/// the run's `model`. A file written before its optimiser's state was kept gives a fresh optimiser.
pub(super) fn read(
    place: Place,
    file: &SafeTensors,
    saved: Option<SavedSae>,
    model: &GPT,
) -> Result<Option<SavedFeatures>> {
    let Some(saved) = saved else { return Ok(None) };
    let c = model.config();
    let mut sae = (place.fresh)(saved.config, c.n_layer, c.n_embd)?;
    let (optimizer_prefix, model_prefix) = (place.prefix("optimizer."), place.prefix("model."));
    read_params(file, &place.prefix(""), &mut sae).map_err(|e| Error::Format(files::place(place.key, e)))?;
    let kind = saved
        .train
        .kind()
        .ok_or_else(|| Error::Format(files::sae_optimizer(format!("{:?}", saved.train.optimizer))))?;
    let mut optimizer = (kind.create)(&sae, &saved.train.hyper());
    if file.iter().any(|(name, _)| name.starts_with(&optimizer_prefix)) {
        restore_optimizer(file, &optimizer_prefix, optimizer.as_mut())?;
        optimizer.set_steps(saved.optimizer_steps);
    }
    let kept = file.iter().any(|(name, _)| name.starts_with(&model_prefix));
    let model = kept
        .then(|| -> Result<GPT> {
            let mut copy = GPT::new(c.clone(), 0)?;
            read_params(file, &model_prefix, copy.params_mut())?;
            Ok(copy)
        })
        .transpose()?;
    Ok(Some(SavedFeatures { saved, sae, optimizer, model }))
}
