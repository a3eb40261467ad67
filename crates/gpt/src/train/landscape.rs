//! A trainable model on its own data, as the learning coefficient's chains sample it
//! (`llc::Landscape`): its training loss, dropout off, on batches drawn once from a seed (so every
//! chain, on any worker, draws from the same ones), at whatever weights a chain has reached. A
//! chain that moves only some weights starts each pass where they start (the stream entering
//! their first block, kept per batch), bit for bit the whole pass.

use super::trainable::{Batches, Frozen, Trainable};
use crate::error::Result;
use crate::llc::Landscape;
use crate::rng::Rng;
use crate::work::{targets, Batch, Split};
use crate::workspace::Workspace;
use std::cell::OnceCell;

/// A batch's token ids and targets, row after row.
pub type IdsAndTargets = (Vec<usize>, Vec<usize>);

/// A copy of a model (its weights move along a chain) and the batches its loss is taken on.
pub struct ModelLandscape<M: Trainable> {
    model: M,
    /// Each batch's token ids and targets, rows of `t`.
    batches: Vec<IdsAndTargets>,
    rows: usize,
    t: usize,
    ws: Workspace,
    /// The weights that move and the parameters holding one, when not all do.
    moving: Option<(Vec<bool>, Vec<bool>)>,
    /// Where each batch's pass starts while only those move (none: from the ids), taken at its
    /// first pass: the blocks below never move.
    frozen: Vec<OnceCell<Option<Frozen>>>,
}

impl<M: Trainable> ModelLandscape<M> {
    /// `model` on `count` batches of `rows` rows of `data`'s `split`, drawn with `seed`.
    pub fn new(model: M, data: &dyn Batches, split: Split, (count, rows): (usize, usize), seed: u64) -> Result<Self> {
        let block = model.block_size();
        let t = data.seq_len(block);
        let mut rng = Rng::new(seed);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let batches = (0..count)
            .map(|_| {
                data.batch(split, rows, block, &mut rng, &mut x, &mut y);
                (x.iter().map(|&id| id as usize).collect(), targets(&y))
            })
            .collect();
        ModelLandscape::on(model, batches, rows, t)
    }

    /// `model` on `batches` already drawn, each `rows` rows of `t`.
    pub fn on(mut model: M, batches: Vec<IdsAndTargets>, rows: usize, t: usize) -> Result<Self> {
        model.set_dropout(0.0)?;
        let frozen = batches.iter().map(|_| OnceCell::new()).collect();
        Ok(ModelLandscape { model, batches, rows, t, ws: Workspace::trimming(), moving: None, frozen })
    }

    /// The batches' token ids and targets, each `rows` rows of `t`: what the chains read.
    pub fn pool(&self) -> (&[IdsAndTargets], usize, usize) {
        (&self.batches, self.rows, self.t)
    }

    fn batch(&self, batch: usize) -> Batch<'_> {
        let (idx, targets) = &self.batches[batch];
        Batch { idx, targets, b: self.rows, t: self.t }
    }

    /// Puts `w` into the model: false if it does not fit.
    fn set_weights(&mut self, w: &[f32]) -> bool {
        let params = self.model.params_mut();
        params.read_flat(w.len(), |at, part| part.copy_from_slice(&w[at..at + part.len()])).is_ok()
    }

    /// The model's weights, flat: the point w* the chains start from.
    pub fn weights(&self) -> Vec<f32> {
        let mut flat = vec![0.0; self.model.params().count()];
        for (at, part) in self.model.params().flat_parts() {
            flat[at..at + part.len()].copy_from_slice(part);
        }
        flat
    }
}

impl<M: Trainable> Landscape for ModelLandscape<M> {
    fn dim(&self) -> usize {
        self.model.params().count()
    }

    fn batches(&self) -> usize {
        self.batches.len()
    }

    /// Each token a batch predicts is one term of its mean loss, so a batch of `rows` sequences
    /// holds rows × t examples (devinterp counts a loader's rows, one term each for its models).
    fn batch_size(&self) -> usize {
        self.rows * self.t
    }

    /// The batch's mean loss at `w`; a loss that cannot be taken reads as not finite, which ends
    /// the chain.
    fn loss_grad(&mut self, w: &[f32], batch: usize, grad: &mut [f32]) -> f32 {
        if !self.set_weights(w) {
            return f32::NAN;
        }
        // The backward pass writes every gradient (a parameter the loss skips gets zeros).
        let (model, frozen) = (&self.model, &self.frozen[batch]);
        let batch = self.batch(batch);
        match &self.moving {
            Some((moves, wanted)) => {
                let frozen = frozen.get_or_init(|| model.frozen_stream(batch, (wanted, moves)).ok().flatten());
                model.loss_and_grad_of(&self.ws, batch, (wanted, frozen.as_ref()), grad)
            }
            None => model.loss_and_grad(&self.ws, batch, None, 1.0, grad),
        }
        .unwrap_or(f32::NAN)
    }

    /// The forward pass alone: the same loss, bit for bit.
    fn loss(&mut self, w: &[f32], batch: usize) -> f32 {
        if !self.set_weights(w) {
            return f32::NAN;
        }
        self.model.score(&self.ws, self.batch(batch)).map_or(f32::NAN, |(loss, _)| loss)
    }

    /// The streams kept for the weights that moved before stay while the same ones move: the
    /// blocks below them are still at w*.
    fn moving(&mut self, moves: Option<&[bool]>) {
        if self.moving.as_ref().map(|(m, _)| m.as_slice()) == moves {
            return;
        }
        self.moving = moves.map(|moves| {
            let parts = self.model.params().flat_parts();
            (moves.to_vec(), parts.map(|(at, part)| moves[at..at + part.len()].contains(&true)).collect())
        });
        self.frozen = self.batches.iter().map(|_| OnceCell::new()).collect();
    }
}
