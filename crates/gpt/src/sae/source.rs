//! Where an autoencoder reads its activations: a frozen copy of a run's GPT at its hook points, or
//! rows built from features known by construction (`toy::synthetic`), so that what it learns can
//! be scored against the truth.

use crate::error::Result;
use crate::model::HookPoint;
use crate::work::Batch;
use crate::workspace::Workspace;
use crate::GPT;

/// Activations an autoencoder can be trained on, a batch at a time.
pub trait Source: Send + Sync + 'static {
    /// The positions a batch's row holds.
    fn block_size(&self) -> usize;
    /// Channels at every point, and the layers a point may name.
    fn width(&self) -> usize;
    fn layers(&self) -> usize;
    /// The activations at each of `points` for `batch`, rows of [`Source::width`].
    fn read(&self, ws: &Workspace, batch: Batch, points: &[HookPoint]) -> Result<Vec<Vec<f32>>>;
    /// What a helper's copy lacks and is sent with the run's state (a GPT's weights).
    fn held_parts(&self) -> Vec<&[f32]>;
    fn held_parts_mut(&mut self) -> Vec<&mut [f32]>;
}

impl Source for GPT {
    fn block_size(&self) -> usize {
        self.config().block_size
    }

    fn width(&self) -> usize {
        self.config().n_embd
    }

    fn layers(&self) -> usize {
        self.config().n_layer
    }

    fn read(&self, ws: &Workspace, batch: Batch, points: &[HookPoint]) -> Result<Vec<Vec<f32>>> {
        self.activations_at(ws, batch.idx, batch.b, batch.t, points)
    }

    fn held_parts(&self) -> Vec<&[f32]> {
        self.params().flat_parts().map(|(_, part)| part).collect()
    }

    fn held_parts_mut(&mut self) -> Vec<&mut [f32]> {
        let parts = self.params_mut().values.iter_mut();
        parts.map(|v| v.as_slice_mut().expect("parameters are kept in standard layout")).collect()
    }
}
