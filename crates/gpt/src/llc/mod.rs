//! The local learning coefficient (LLC) of singular learning theory, estimated as Timaeus's
//! devinterp estimates it (`slt/llc.py`, `optim/sgmcmc.py`'s SGLD, Lau et al. 2023): chains of
//! stochastic-gradient Langevin dynamics from the trained weights w*, each step
//!
//!   Δw = ε/2 (−nβ ∇L_batch(w) + γ (w* − w)) + N(0, ε),
//!
//! and the estimate nβ (E[L] − L(w*)), the mean over each chain's draws (after burn-in) of the
//! batch loss at the weights the step starts from, less the loss at w*. devinterp takes L(w*) on
//! one batch per chain; here it is the mean over every batch the chains draw from, the same
//! quantity without that batch's noise (which nβ multiplies: at nβ in the thousands, a few
//! batches of 8 rows moved the estimate by hundreds). A chain's noise and batches come from a seed of its own, so a
//! chain is the same whichever worker runs it. Restricted to some weights (a head's, an MLP's: the
//! refined LLC, devinterp's `optimize_over`), only those move.
//! `Landscape` is what it samples: a model's loss on batches of its data, with its gradient.

mod calibrate;
mod sgld;
#[cfg(test)]
mod tests;
mod turns;

pub use calibrate::{calibrate, default_grid, judge, Calibration, Cell, Verdict};
pub use sgld::{chain, Chain, KeptStep};
pub use turns::{turning_points, Turn};

use crate::error::{Error, Result};
use crate::words::llc as words;
use serde::{Deserialize, Serialize};

/// A loss over batches of data at any weights, with its gradient: what SGLD samples.
pub trait Landscape {
    /// The weights, flattened.
    fn dim(&self) -> usize;
    /// Batches to draw from, and the examples in each (the default nβ's n).
    fn batches(&self) -> usize;
    fn batch_size(&self) -> usize;
    /// The mean loss of batch `batch` at `w`, its gradient written into `grad` (where the
    /// weights move, at least).
    fn loss_grad(&mut self, w: &[f32], batch: usize, grad: &mut [f32]) -> f32;
    /// The mean loss of batch `batch` at `w` alone (a landscape may skip the backward pass).
    fn loss(&mut self, w: &[f32], batch: usize) -> f32 {
        self.loss_grad(w, batch, &mut vec![0.0; w.len()])
    }
    /// Which weights the chains to come move (all, for none): a landscape may then skip the
    /// other weights' gradients.
    fn moving(&mut self, _moves: Option<&[bool]>) {}
}

/// How the chains run: devinterp's names (a field left out takes the default's).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default)]
pub struct LlcConfig {
    /// SGLD's step ε.
    pub epsilon: f32,
    /// The localisation γ, the pull back toward w*.
    pub gamma: f32,
    /// The inverse temperature nβ; none takes devinterp's default, m / ln m for batches of m.
    pub nbeta: Option<f32>,
    pub chains: usize,
    /// Draws each chain records, after `burn_in` steps it does not.
    pub draws: usize,
    pub burn_in: usize,
    pub seed: u64,
}

impl Default for LlcConfig {
    /// What calibration picked on the induction preset after its 1,000 steps (docs/llc.md): with
    /// batches of 8 rows and nβ ≈ 45, the estimate held from ε 3e-5 to 1e-4 at γ 1,000.
    fn default() -> Self {
        LlcConfig { epsilon: 1e-4, gamma: 1_000.0, nbeta: None, chains: 4, draws: 200, burn_in: 50, seed: 42 }
    }
}

/// An estimate: its mean over the chains and their spread, each chain's, and each chain's losses
/// (the diagnostic: a trace that drifts up or ends in a loss that is not finite says the step is
/// too big).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Llc {
    pub mean: f64,
    /// The chains' sample standard deviation (0 for one chain), as devinterp reports it.
    pub std: f64,
    pub per_chain: Vec<f64>,
    /// L(w*): the mean loss at the trained weights over every batch.
    pub init_loss: f64,
    pub nbeta: f64,
    pub traces: Vec<Vec<f32>>,
    /// Each chain's mean MALA acceptance (devinterp's diagnostic: aim near 0.9).
    pub acceptance: Vec<f64>,
}

impl Llc {
    /// The chains whose loss stopped being finite (they end early, and have no estimate).
    pub fn diverged(&self) -> Vec<usize> {
        (0..self.traces.len()).filter(|&c| !self.per_chain[c].is_finite()).collect()
    }
}

/// devinterp's default inverse temperature for batches of `m`: m / ln m (1 for one example).
pub fn default_nbeta(m: usize) -> f64 {
    if m <= 1 {
        1.0
    } else {
        m as f64 / (m as f64).ln()
    }
}

impl LlcConfig {
    /// The inverse temperature on `landscape`: the one asked, or the default for its batches.
    pub fn nbeta_on(&self, landscape: &dyn Landscape) -> f64 {
        self.nbeta.map_or_else(|| default_nbeta(landscape.batch_size()), f64::from)
    }

    /// Why these chains cannot run, if they cannot.
    pub(crate) fn check(&self) -> Result<()> {
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(Error::Config(words::step(self.epsilon)));
        }
        if !(self.gamma.is_finite() && self.gamma >= 0.0) {
            return Err(Error::Config(words::localisation(self.gamma)));
        }
        if let Some(nbeta) = self.nbeta.filter(|b| !(b.is_finite() && *b > 0.0)) {
            return Err(Error::Config(words::temperature(nbeta)));
        }
        if self.chains == 0 || self.draws == 0 {
            return Err(Error::Config(words::draws(self.chains, self.draws)));
        }
        Ok(())
    }
}

/// The LLC of `landscape` at `w_star`, its chains run one after another; `restrict`, if given,
/// marks the only weights that move (the refined LLC).
pub fn estimate(
    landscape: &mut dyn Landscape,
    w_star: &[f32],
    restrict: Option<&[bool]>,
    config: &LlcConfig,
) -> Result<Llc> {
    config.check()?;
    if w_star.len() != landscape.dim() || restrict.is_some_and(|r| r.len() != w_star.len()) {
        return Err(Error::Config(words::misfit(w_star.len(), landscape.dim())));
    }
    if landscape.batches() == 0 {
        return Err(Error::Data(words::no_batches()));
    }
    let nbeta = config.nbeta_on(landscape);
    let init_loss = init_loss(landscape, w_star);
    let chains: Vec<Chain> =
        (0..config.chains).map(|c| chain(landscape, w_star, restrict, config, (nbeta as f32, c), None)).collect();
    Ok(summarise(chains, init_loss, nbeta))
}

/// L(w*): the mean loss at w* over every batch.
pub fn init_loss(landscape: &mut dyn Landscape, w_star: &[f32]) -> f64 {
    let total: f64 = (0..landscape.batches()).map(|b| f64::from(landscape.loss(w_star, b))).sum();
    total / landscape.batches() as f64
}

/// The estimate from each chain's recorded losses: nβ (mean − `init_loss`), a chain that did not
/// finish (its last loss not finite) left out of the mean and spread.
pub fn summarise(chains: Vec<Chain>, init_loss: f64, nbeta: f64) -> Llc {
    let (traces, acceptance): (Vec<_>, Vec<_>) = chains.into_iter().map(|c| (c.trace, c.acceptance)).unzip();
    let per_chain: Vec<f64> = traces
        .iter()
        .map(|t| match t.last() {
            Some(l) if l.is_finite() => {
                nbeta * (t.iter().map(|&l| f64::from(l)).sum::<f64>() / t.len() as f64 - init_loss)
            }
            _ => f64::NAN,
        })
        .collect();
    let finished: Vec<f64> = per_chain.iter().copied().filter(|v| v.is_finite()).collect();
    let n = finished.len() as f64;
    let mean = if finished.is_empty() { f64::NAN } else { finished.iter().sum::<f64>() / n };
    let std = if finished.len() < 2 {
        0.0
    } else {
        (finished.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    };
    Llc { mean, std, per_chain, init_loss, nbeta, traces, acceptance }
}
