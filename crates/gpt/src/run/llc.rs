//! A run's local learning coefficient: devinterp's estimator (`llc/`) on a copy of the model, its
//! training loss taken on batches of the run's own training data.

use super::features::frozen_copy;
use super::training::Watch;
use super::Run;
use crate::error::Result;
use crate::llc::{estimate, Llc, LlcConfig};
use crate::train::ModelLandscape;
use crate::work::Split;

/// Batches drawn once for the chains to draw from: enough that a chain of a few hundred draws
/// sees the data, not one batch.
const BATCHES: usize = 32;

impl<W: Watch> Run<W> {
    /// The model's LLC at its current weights, chains of `config` on batches the size its
    /// training takes (drawn by `config.seed`); the model itself does not move.
    pub fn llc(&self, config: &LlcConfig) -> Result<Llc> {
        let rows = self.train_config().batch_size;
        let mut landscape =
            ModelLandscape::new(frozen_copy(self.model())?, self.data()?, Split::Train, (BATCHES, rows), config.seed)?;
        let w_star = landscape.weights();
        estimate(&mut landscape, &w_star, None, config)
    }
}
