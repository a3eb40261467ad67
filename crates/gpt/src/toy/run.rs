//! A toy model's run: the model and its trainer, stepped and read by the CLI and the page alike.

use super::data::{features_of, ToyData, ToySettings};
use super::geometry::Geometry;
use super::superposition::ToyModel;
use crate::config::TrainConfig;
use crate::error::Result;
use crate::train::{TrainReport, Trainer};
use serde::Serialize;

/// A toy model in training.
pub struct ToyRun {
    trainer: Trainer<ToyModel>,
    data: ToyData,
}

impl ToyRun {
    /// Elhage et al.'s recipe, shortened: AdamW at a constant 3e-3 (their 1e-3 takes three times
    /// the steps to the same geometry), batches of 1024 rows, no weight decay or clipping, 3,000
    /// steps, evaluating 10 times.
    pub fn recipe() -> TrainConfig {
        TrainConfig {
            batch_size: 1024,
            max_iters: 3000,
            learning_rate: 3e-3,
            min_lr: 3e-3,
            warmup_iters: 0,
            decay_lr: false,
            weight_decay: 0.0,
            grad_clip: 0.0,
            eval_interval: Some(300),
            eval_iters: 4,
            ..TrainConfig::default()
        }
    }

    /// The recipe for `steps` steps from `seed`, evaluating ten times on the way.
    pub fn recipe_for(steps: usize, seed: u64) -> TrainConfig {
        TrainConfig { max_iters: steps, seed, eval_interval: Some(steps.div_ceil(10).max(1)), ..ToyRun::recipe() }
    }

    /// A fresh model of `settings`, to train by `train` (its seed draws the weights and the rows).
    pub fn new(settings: ToySettings, train: TrainConfig) -> Result<ToyRun> {
        train.validate()?;
        let model = ToyModel::new(settings, train.seed)?;
        Ok(ToyRun { trainer: Trainer::new(model, train), data: ToyData::default() })
    }

    /// Up to `n` steps (never past the last), and an evaluation wherever one falls due. A step
    /// that diverges is an error (in the reader's words), the model kept as it was before it.
    pub fn train(&mut self, n: usize, now_ms: &dyn Fn() -> f64) -> Result<TrainReport> {
        for _ in 0..n.max(1) {
            if self.trainer.eval_due() {
                self.trainer.evaluate(&ToyData::default())?;
            }
            if self.done() {
                break;
            }
            self.trainer.step(&self.data, now_ms)?;
        }
        if self.trainer.eval_due() {
            self.trainer.evaluate(&ToyData::default())?;
        }
        Ok(self.trainer.take_report())
    }

    /// Keeps each training step's rows from now on (not an evaluation's), for [`ToyRun::kept_rows`].
    pub fn keep_rows(&mut self) {
        self.data = ToyData::keeping();
    }

    /// Each training batch's rows (rows × n features) since [`ToyRun::keep_rows`].
    pub fn kept_rows(&self) -> Vec<Vec<f32>> {
        let settings = self.trainer.model().settings();
        self.data
            .kept()
            .iter()
            .map(|seeds| features_of(settings, &seeds.iter().map(|&s| s as usize).collect::<Vec<_>>()))
            .collect()
    }

    /// Whether it has taken every step its recipe asks for.
    pub fn done(&self) -> bool {
        self.trainer.step_count() >= self.trainer.train_config().max_iters
    }

    pub fn model(&self) -> &ToyModel {
        self.trainer.model()
    }

    pub fn trainer(&self) -> &Trainer<ToyModel> {
        &self.trainer
    }

    /// What the model has learned so far.
    pub fn geometry(&self) -> Geometry {
        Geometry::of(self.trainer.model())
    }

    /// Where the run is and what the model has learned, as the page shows it.
    pub fn status(&self) -> ToyStatus {
        ToyStatus {
            step: self.trainer.step_count(),
            steps: self.trainer.train_config().max_iters,
            loss: self.trainer.history().evals.last().map(|e| e.val_loss),
            importance: self.model().settings().importance(),
            geometry: self.geometry(),
        }
    }
}

/// A toy run's progress and geometry.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ToyStatus {
    pub step: usize,
    pub steps: usize,
    /// The last evaluation's held-out loss.
    pub loss: Option<f32>,
    /// Each feature's importance `I_i`.
    pub importance: Vec<f32>,
    pub geometry: Geometry,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trained(settings: ToySettings) -> Geometry {
        let mut run = ToyRun::new(settings, ToyRun::recipe()).unwrap();
        let clock = || 0.0;
        while !run.done() {
            run.train(500, &clock).unwrap();
        }
        run.geometry()
    }

    /// Elhage et al.'s pentagon: five features of falling importance, sparse enough, all stored in
    /// two dimensions at the corners of a pentagon; dense, only the two most important.
    #[test]
    fn five_sparse_features_make_a_pentagon_in_two_dimensions_and_dense_ones_two_features() {
        let sparse = trained(ToySettings { sparsity: 0.9, ..ToySettings::default() });
        assert!(sparse.dimensionality.iter().all(|d| (d - 0.4).abs() < 0.05), "{:?}", sparse.dimensionality);
        assert!(sparse.norms.iter().all(|n| *n > 0.5), "{:?}", sparse.norms);
        let dense = trained(ToySettings { sparsity: 0.0, ..ToySettings::default() });
        let stored: Vec<bool> = dense.norms.iter().map(|n| *n > 0.5).collect();
        assert_eq!(stored, vec![true, true, false, false, false], "{:?}", dense.norms);
        assert!(dense.dimensionality[..2].iter().all(|d| (d - 1.0).abs() < 0.05), "{:?}", dense.dimensionality);
    }
}
