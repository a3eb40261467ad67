//! `gpt superposition --llc EVERY`: the toy model's learning coefficient while it trains. Chen et
//! al. (2023) watch SGD carry the toy from one k-gon to the next, each a plateau of the loss, and
//! the LLC step up at each drop. Here, every EVERY steps: the training loss, the features the
//! model represents (norm above one half) and the LLC of all its weights, on batches of its
//! training rows.

use gpt::llc::{estimate, LlcConfig};
use gpt::toy::{ToyData, ToyRun};
use gpt::train::ModelLandscape;
use gpt::work::Split;
use serde::Serialize;

/// The chains' setting for the toy (docs/llc.md, "The toy model of superposition").
#[derive(clap::Args)]
pub struct ToyLlcFlags {
    /// Every this many steps, estimate the LLC (and once before training).
    #[arg(long)]
    pub llc: Option<usize>,
    /// With --llc: SGLD's step ε (the estimate held from 3e-3 to 1e-2 at γ 10 on 6 features in 2
    /// dimensions).
    #[arg(long, default_value_t = 3e-3)]
    llc_epsilon: f32,
    /// With --llc: the localisation γ (at 100 it held the chains too close to read the loss).
    #[arg(long, default_value_t = 10.0)]
    llc_gamma: f32,
    /// With --llc: the inverse temperature nβ [default: m / ln m for batches of m rows].
    #[arg(long)]
    llc_nbeta: Option<f32>,
    /// With --llc: draws each of the 4 chains records, after a fifth as many it does not.
    #[arg(long, default_value_t = 500)]
    llc_draws: usize,
    /// With --llc: rows in each of the chains' 32 batches.
    #[arg(long, default_value_t = 1024)]
    llc_rows: usize,
}

/// One record: the step, the last step's training loss, the features represented and the LLC.
#[derive(Serialize)]
pub struct ToyLlcPoint {
    step: usize,
    loss: f32,
    features: usize,
    llc: f64,
    std: f64,
    diverged: usize,
}

impl ToyLlcFlags {
    fn config(&self, seed: u64) -> LlcConfig {
        let (chains, draws) = (4, self.llc_draws);
        LlcConfig {
            epsilon: self.llc_epsilon,
            gamma: self.llc_gamma,
            nbeta: self.llc_nbeta,
            chains,
            draws,
            burn_in: draws / 5,
            seed,
        }
    }

    /// The record of `run` now, printed as a line unless `json`.
    pub fn record(&self, run: &ToyRun, json: bool) -> Result<ToyLlcPoint, String> {
        let seed = run.trainer().train_config().seed;
        let landscape =
            ModelLandscape::new(run.model().clone(), &ToyData::default(), Split::Train, (32, self.llc_rows), seed);
        let mut landscape = landscape.map_err(|e| e.to_string())?;
        let w_star = landscape.weights();
        let llc = estimate(&mut landscape, &w_star, None, &self.config(seed)).map_err(|e| e.to_string())?;
        let geometry = run.geometry();
        let point = ToyLlcPoint {
            step: run.trainer().step_count(),
            loss: run.trainer().history().losses.last().copied().unwrap_or(f32::NAN),
            features: geometry.norms.iter().filter(|&&n| n > 0.5).count(),
            llc: llc.mean,
            std: llc.std,
            diverged: llc.diverged().len(),
        };
        if !json {
            let ToyLlcPoint { step, loss, features, llc, std, diverged } = &point;
            let lost = if *diverged > 0 { format!(" ({diverged} chain(s) diverged)") } else { String::new() };
            let loss = if loss.is_finite() { format!("loss {loss:.5}") } else { "no step yet".into() };
            println!("  step {step:>6}: {loss}, {features} feature(s) represented, LLC {llc:.3} ± {std:.3}{lost}");
        }
        Ok(point)
    }
}
