//! A step's update under way: its gradients summed, checked and clipped, and its optimiser's
//! pieces, which the workers share out (`job.rs`) before each applies it (`train/update.rs`).

use crate::error::{Error, Result};
use crate::optim::Piece;
use crate::words::runs::bug;

/// A step's update: its gradients summed, checked and clipped, and its optimiser's pieces.
pub struct Update {
    pub grads: Vec<f32>,
    pub loss: f32,
    pub lr: f32,
    pub grad_norm: f32,
    pub pieces: Vec<Piece>,
    /// The pieces this worker computes; the others compute the rest.
    pub mine: Vec<usize>,
}

impl Update {
    /// Takes in computed `pieces`, `len` values in all that `fill(at, out)` copies, one piece
    /// after another.
    pub fn fill(&mut self, pieces: &[usize], len: usize, mut fill: impl FnMut(usize, &mut [f32])) -> Result<()> {
        let sizes: Option<Vec<usize>> = pieces.iter().map(|&k| self.pieces.get(k).map(|p| p.values.len())).collect();
        if sizes.as_ref().map(|s| s.iter().sum::<usize>()) != Some(len) {
            return Err(Error::Data(bug(format!("{len} values came for pieces {pieces:?}, which do not hold them"))));
        }
        let mut at = 0;
        for &k in pieces {
            let piece = &mut self.pieces[k];
            fill(at, &mut piece.values);
            at += piece.values.len();
            piece.done = true;
        }
        Ok(())
    }
}
