//! What an optimiser is: the trait its state implements (a step in three parts, so that workers
//! can share the costly middle one), and how the settings name it ([`OptimizerKind`]). `mod.rs`
//! lists every optimiser once.

use crate::error::{FieldError, Result};
use crate::fields::{Field, Reader};
use crate::params::Params;
use ndarray::ArrayD;

/// A piece of a step that any worker computes with the same bits: a matrix (`rows` × `cols`,
/// flat), transformed in place by its optimiser's [`OptimizerKind::compute`].
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f32>,
    /// Multiply-adds it takes, for sharing pieces out evenly.
    pub cost: usize,
    /// Whether it has been computed.
    pub done: bool,
}

/// The settings every optimiser reads: AdamW's (which trains at least the embeddings under every
/// optimiser) and the chosen optimiser's own.
#[derive(Clone, Copy)]
pub struct Hyper<'a> {
    pub beta1: f32,
    pub beta2: f32,
    pub weight_decay: f32,
    /// The peak learning rate the schedule scales (AdamW's).
    pub learning_rate: f32,
    /// The chosen optimiser's own settings (`muon_lr`, …).
    pub own: Reader<'a>,
}

/// A step's learning rates: AdamW's at this step, and its share of the peak, which scales an
/// optimiser's own rate along the same schedule.
#[derive(Clone, Copy, Debug)]
pub struct Rates {
    pub lr: f32,
    pub scale: f32,
}

/// The rate one parameter moves at in a step, and the optimiser that moves it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamRate {
    /// The optimiser, as the settings name it (`adamw`, `muon`).
    pub optimizer: &'static str,
    /// That optimiser's rate at this step, along the schedule.
    pub base: f32,
    /// The parameter's own: `base`, times a matrix's shape scale where the optimiser has one.
    pub lr: f32,
}

/// Saved state by name: `saved(name, shape)` gives a tensor, `None` when the file lacks it, or an
/// error when it does not fit `shape`.
pub type Saved<'a> = &'a dyn Fn(&str, &[usize]) -> Result<Option<ArrayD<f32>>>;

/// An optimiser's state, and its step in three parts: [`Optimizer::begin`] (the pieces any worker
/// may compute, changing nothing), the pieces computed (here or elsewhere), then
/// [`Optimizer::finish`]. A step given up after `begin` leaves the state as it was.
pub trait Optimizer: Send {
    /// Its kind, as the settings name it.
    fn kind(&self) -> &'static OptimizerKind;
    /// The shareable pieces of a step from the summed, clipped `grads` (every parameter, flat):
    /// none for most optimisers.
    fn begin(&self, _params: &[ArrayD<f32>], _grads: &[f32]) -> Vec<Piece> {
        vec![]
    }
    /// Applies the step at `rates`, every piece of `begin` computed, and keeps its new state.
    fn finish(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], rates: Rates, pieces: Vec<Piece>);
    /// Its state as named tensors, under its own names (a checkpoint writes them under
    /// `optimizer.`), in a fixed order.
    fn state(&self) -> Vec<(String, &ArrayD<f32>)>;
    /// Takes back state saved as [`Optimizer::state`] named it.
    fn restore(&mut self, saved: Saved) -> Result<()>;
    /// Steps taken, as a checkpoint records them.
    fn steps(&self) -> u64;
    fn set_steps(&mut self, steps: u64);
    /// Takes new settings between steps.
    fn retune(&mut self, hyper: &Hyper);
    /// Each parameter's rate in a step at `rates`, in the parameters' order.
    fn param_rates(&self, rates: Rates) -> Vec<ParamRate>;
    /// A copy of the whole state.
    fn boxed_clone(&self) -> Box<dyn Optimizer>;
}

/// An optimiser as the settings name it: registered once in [`super::OPTIMIZERS`].
pub struct OptimizerKind {
    /// Its name in the settings (`train.optimizer`), links and the CLI (`muon`).
    pub name: &'static str,
    /// How the form lists it.
    pub title: &'static str,
    /// Its own settings, each named after it (`muon_lr`), so they sit beside the others in
    /// `train` and no two optimisers' clash.
    pub fields: &'static [Field],
    /// What is wrong between its settings and the others (a rate times the decay past 1).
    pub errors: fn(&Hyper) -> Vec<FieldError>,
    /// Fresh state for `params`.
    pub create: fn(&Params, &Hyper) -> Box<dyn Optimizer>,
    /// Computes a piece of a step, as any worker does, by the optimiser's own settings.
    pub compute: fn(&mut Piece, Reader),
}
