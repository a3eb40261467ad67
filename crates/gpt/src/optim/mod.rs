//! The optimisers: AdamW for every parameter (`adamw.rs`, nanoGPT's), or Muon for the weight
//! matrices inside the blocks with AdamW for the rest (`muon.rs`); and clipping by the global
//! gradient norm.

mod adamw;
mod muon;

pub use adamw::AdamW;
pub use muon::{
    orthogonalize, orthogonalize_all, orthogonalize_in_place, shares, Muon, MuonStep, NS_COEFFICIENTS, NS_STEPS,
};

use crate::params::Params;
use ndarray::ArrayD;
use serde::{Deserialize, Serialize};

/// Which optimiser trains the weight matrices inside the blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// AdamW for every parameter, as nanoGPT.
    #[default]
    AdamW,
    /// Muon for those matrices, AdamW for the rest.
    Muon,
}

impl std::str::FromStr for OptimizerKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "adamw" => Ok(OptimizerKind::AdamW),
            "muon" => Ok(OptimizerKind::Muon),
            _ => Err(format!("unknown optimizer {s:?}; choose adamw or muon")),
        }
    }
}

/// A run's optimiser state: AdamW's moments for every parameter (those Muon trains stay zero),
/// and Muon's momentum when it trains the block matrices.
#[derive(Clone, Debug)]
pub struct Optimizer {
    pub adamw: AdamW,
    pub muon: Option<Muon>,
}

impl Optimizer {
    /// Fresh state for `params` trained by `kind`; AdamW's betas and both optimisers' decay as given.
    pub fn new(
        params: &Params,
        kind: OptimizerKind,
        (beta1, beta2, weight_decay): (f32, f32, f32),
        momentum: f32,
    ) -> Self {
        let adamw = AdamW::new(&params.values, beta1, beta2, weight_decay);
        let muon =
            (kind == OptimizerKind::Muon).then(|| Muon::new(&params.names, &params.values, momentum, weight_decay));
        Optimizer { adamw, muon }
    }

    /// One update from the flat `grads`: AdamW at `lr`, and Muon (if it trains) at `muon_lr`,
    /// its Newton–Schulz steps on up to `threads` threads.
    pub fn step(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], rates: (f32, f32), threads: usize) {
        let mut muon = self.begin(params, grads);
        if let Some(m) = &mut muon {
            m.complete(threads);
        }
        self.finish(params, grads, rates, muon);
    }

    /// Muon's part of a step from the flat `grads`, to orthogonalise (none without Muon).
    pub fn begin(&self, params: &[ArrayD<f32>], grads: &[f32]) -> Option<MuonStep> {
        let offsets: Vec<usize> = params.iter().scan(0, |at, p| Some(std::mem::replace(at, *at + p.len()))).collect();
        self.muon.as_ref().map(|m| m.begin(grads, &offsets))
    }

    /// Applies a step: AdamW at `lr` (to the parameters Muon does not train), and Muon's step
    /// `muon`, every matrix orthogonalised, at `muon_lr`.
    pub fn finish(
        &mut self,
        params: &mut [ArrayD<f32>],
        grads: &[f32],
        (lr, muon_lr): (f32, f32),
        muon: Option<MuonStep>,
    ) {
        match (&mut self.muon, muon) {
            (Some(m), Some(step)) => {
                self.adamw.step_except(params, grads, lr, &m.params);
                m.apply(params, step, muon_lr);
            }
            _ => self.adamw.step(params, grads, lr),
        }
    }
}

/// The L2 norm of all gradients together (a flat buffer of them).
pub fn global_norm(grads: &[f32]) -> f32 {
    let square = |x: f32| (x as f64) * (x as f64);
    crate::ops::fold8(grads, 0.0, |s, x| s + square(x), |a, b| a + b).sqrt() as f32
}

/// Scales all gradients down so their global norm is at most `max_norm`, as PyTorch's
/// `clip_grad_norm_`; returns the norm before clipping.
pub fn clip_grad_norm(grads: &mut [f32], max_norm: f32) -> f32 {
    let norm = global_norm(grads);
    let coef = max_norm / (norm + 1e-6);
    if coef < 1.0 {
        grads.iter_mut().for_each(|g| *g *= coef);
    }
    norm
}
