//! Activations whose true features are known, for an autoencoder to learn and be scored against:
//! built here ([`super::Synthetic`]) or read from a file SAELens's generator wrote
//! ([`super::Recorded`]).

use crate::error::Result;
use crate::model::HookPoint;
use crate::sae::Source;
use crate::work::Batch;
use crate::workspace::Workspace;

/// Activations a row per seed (a batch's seeds, as the trainer draws them), the same at any point
/// an autoencoder reads: each is a [`Source`].
pub trait Rows: Send + Sync + 'static {
    /// The dimensions of a row.
    fn dims(&self) -> usize;
    /// The rows of `seeds`, one after another.
    fn rows(&self, seeds: &[usize]) -> Vec<f32>;
    /// What a helper's copy lacks and is sent (see [`Source::held_parts`]).
    fn held(&self) -> Vec<&[f32]>;
    fn held_mut(&mut self) -> Vec<&mut [f32]>;
}

impl<R: Rows> Source for R {
    fn block_size(&self) -> usize {
        1
    }

    fn width(&self) -> usize {
        self.dims()
    }

    fn layers(&self) -> usize {
        1
    }

    fn read(&self, _ws: &Workspace, batch: Batch, points: &[HookPoint]) -> Result<Vec<Vec<f32>>> {
        let rows = self.rows(batch.idx);
        Ok(points.iter().map(|_| rows.clone()).collect())
    }

    fn held_parts(&self) -> Vec<&[f32]> {
        self.held()
    }

    fn held_parts_mut(&mut self) -> Vec<&mut [f32]> {
        self.held_mut()
    }
}

/// [`Rows`] whose features are known.
pub trait Known: Rows {
    /// The true features' directions, (n, d) row by row.
    fn truth(&self) -> &[f32];
    /// `rows` rows never trained on (fewer if it holds fewer), and their true features' activations
    /// (rows × n) if known.
    fn held_out(&self, rows: usize) -> (Vec<f32>, Option<Vec<f32>>);
    /// `rows` training rows, to centre the autoencoder and measure the activations' variance.
    fn sample(&self, rows: usize) -> Vec<f32> {
        self.rows(&(0..rows).collect::<Vec<_>>())
    }
    /// Feature `i`'s parent in a hierarchy, if it has one (none has, unless it says).
    fn parent(&self, _i: usize) -> Option<usize> {
        None
    }
}

/// Any source of known features, chosen at run time (the page's choice of one).
impl Rows for Box<dyn Known> {
    fn dims(&self) -> usize {
        (**self).dims()
    }

    fn rows(&self, seeds: &[usize]) -> Vec<f32> {
        (**self).rows(seeds)
    }

    fn held(&self) -> Vec<&[f32]> {
        (**self).held()
    }

    fn held_mut(&mut self) -> Vec<&mut [f32]> {
        (**self).held_mut()
    }
}

impl Known for Box<dyn Known> {
    fn truth(&self) -> &[f32] {
        (**self).truth()
    }

    fn held_out(&self, rows: usize) -> (Vec<f32>, Option<Vec<f32>>) {
        (**self).held_out(rows)
    }

    fn sample(&self, rows: usize) -> Vec<f32> {
        (**self).sample(rows)
    }

    fn parent(&self, i: usize) -> Option<usize> {
        (**self).parent(i)
    }
}
