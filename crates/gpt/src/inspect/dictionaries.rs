//! The page's one entry point to a run's dictionaries: a request of its autoencoder
//! (`run/feature_requests.rs`) or of its transcoders (`graph/requests.rs`), named by `of`.

use super::graph::{TranscoderAnswer, TranscoderRequest};
use super::Run;
use crate::error::Result;
use crate::run::{FeatureAnswer, FeatureRequest};
use serde::{Deserialize, Serialize};

/// A request, and which dictionary it is for.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "of", rename_all = "snake_case")]
pub enum DictionaryRequest {
    Autoencoder(FeatureRequest),
    Transcoders(TranscoderRequest),
}

/// The dictionary's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum DictionaryAnswer {
    Autoencoder(FeatureAnswer),
    Transcoders(TranscoderAnswer),
}

impl Run {
    /// Answers `request`; a failed request changes nothing.
    pub fn dictionaries_do(&mut self, request: DictionaryRequest) -> Result<DictionaryAnswer> {
        Ok(match request {
            DictionaryRequest::Autoencoder(request) => DictionaryAnswer::Autoencoder(self.features_do(request)?),
            DictionaryRequest::Transcoders(request) => DictionaryAnswer::Transcoders(self.transcoders_do(request)?),
        })
    }
}
