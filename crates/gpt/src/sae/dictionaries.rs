//! What the autoencoder's trainee trains (`trainee.rs`): one autoencoder, or a transcoder per MLP
//! (`transcoders.rs`), each a dictionary of features seen through [`SaeRef`].

use super::transcoders::Transcoders;
use super::weights::{Sae, SaeRef};
use crate::params::Params;

/// A dictionary's activations for a batch: what it reads, and what it should write when that
/// differs (a transcoder's MLP output).
pub type Read = (Vec<f32>, Option<Vec<f32>>);

/// What a trainee trains: one autoencoder, or a transcoder per MLP, each a dictionary of
/// features whose four tensors follow the one before's in its parameters.
pub trait Dictionaries: Send + Sync {
    fn params(&self) -> &Params;
    fn params_mut(&mut self) -> &mut Params;
    /// Each dictionary, in the order of its tensors.
    fn each(&self) -> Vec<SaeRef<'_>>;
    /// Scales every decoder row to unit norm.
    fn normalize_decoders(&mut self);
    /// Dictionary `k`'s thresholds, if its architecture keeps them.
    fn threshold_mut(&mut self, k: usize) -> Option<&mut [f32]>;
}

impl Dictionaries for Sae {
    fn params(&self) -> &Params {
        Sae::params(self)
    }

    fn params_mut(&mut self) -> &mut Params {
        Sae::params_mut(self)
    }

    fn each(&self) -> Vec<SaeRef<'_>> {
        vec![self.view()]
    }

    fn normalize_decoders(&mut self) {
        self.normalize_decoder();
    }

    fn threshold_mut(&mut self, k: usize) -> Option<&mut [f32]> {
        Sae::threshold_mut(self).filter(|_| k == 0)
    }
}

impl Dictionaries for Transcoders {
    fn params(&self) -> &Params {
        Transcoders::params(self)
    }

    fn params_mut(&mut self) -> &mut Params {
        Transcoders::params_mut(self)
    }

    fn each(&self) -> Vec<SaeRef<'_>> {
        Transcoders::each(self)
    }

    fn normalize_decoders(&mut self) {
        Transcoders::normalize_decoders(self);
    }

    /// Transcoders are TopK or ReLU (`SaeConfig::validate`): none keeps thresholds.
    fn threshold_mut(&mut self, _: usize) -> Option<&mut [f32]> {
        None
    }
}
