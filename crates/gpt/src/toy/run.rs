//! A toy model's run: the model and its trainer, stepped and read by the CLI and the page alike.

use super::data::{features_of, ToyData, ToySettings};
use super::geometry::Geometry;
use super::superposition::ToyModel;
use crate::config::TrainConfig;
use crate::error::Result;
use crate::train::{TrainReport, Trainer};

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

    /// A fresh model of `settings`, to train by `train` (its seed draws the weights and the rows).
    pub fn new(settings: ToySettings, train: TrainConfig) -> Result<ToyRun> {
        train.validate()?;
        let model = ToyModel::new(settings, train.seed)?;
        Ok(ToyRun { trainer: Trainer::new(model, train), data: ToyData::default() })
    }

    /// Up to `n` steps (never past the last), and an evaluation wherever one falls due.
    pub fn train(&mut self, n: usize, now_ms: &dyn Fn() -> f64) -> Result<TrainReport> {
        let mut report = None;
        for _ in 0..n.max(1) {
            if self.trainer.eval_due() {
                self.trainer.evaluate(&ToyData::default())?;
            }
            if self.done() {
                break;
            }
            report = Some(self.trainer.train(1, &self.data, now_ms));
            if report.as_ref().is_some_and(|r| r.stopped.is_some()) {
                break;
            }
        }
        if self.trainer.eval_due() {
            self.trainer.evaluate(&ToyData::default())?;
        }
        Ok(report.unwrap_or_else(|| self.trainer.take_report()))
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
