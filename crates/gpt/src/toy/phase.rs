//! Elhage et al.'s phase diagrams: a grid of toy models, one per cell, over how dense the features
//! are (`1 − S`, log-spaced from 1 to 0.01, dense at the top) and how important an extra feature
//! is against the others (log-spaced from 0.1 to 10), for 2 features in 1 dimension or 3 in 2.
//! Each cell's model is trained alone (the grid's cells are shared among the page's workers or
//! the CLI's threads), and the extra feature is classified: not stored, stored alone in a
//! dimension of its own, or in superposition with the others.

use super::data::ToySettings;
use super::data::Variant;
use super::geometry::Geometry;
use super::run::ToyRun;
use crate::config::TrainConfig;
use crate::error::{Error, Result};
use crate::words::toy;
use serde::{Deserialize, Serialize};

/// The most cells on a side.
pub const MAX_SIDE: usize = 40;

/// Each cell's model is trained this many times from different seeds and the lowest loss kept,
/// as Elhage et al. train many instances: one run alone lands in a worse minimum (a feature's
/// sign stuck at the start) often enough to speckle the sparse half of the diagram.
const ATTEMPTS: usize = 3;
/// Steps in each attempt.
const CELL_STEPS: usize = 1000;

/// Which diagram, and how fine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct PhaseSpec {
    /// 2 (in 1 dimension) or 3 (in 2).
    pub features: usize,
    pub hidden: usize,
    /// Cells on each side.
    pub side: usize,
    pub seed: u64,
}

/// What the extra feature became.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    NotStored,
    Alone,
    Superposed,
}

/// One cell of a diagram: where it is, and what its model did with the extra feature.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Cell {
    pub index: usize,
    /// `1 − S`.
    pub density: f32,
    /// The extra feature's importance, the others' being 1.
    pub importance: f32,
    pub phase: Phase,
    /// The extra feature's norm and dimensionality.
    pub norm: f32,
    pub dimensionality: f32,
}

impl PhaseSpec {
    /// Elhage's diagram of `features` in `hidden` dimensions, `side` cells a side.
    pub fn new(features: usize, hidden: usize, side: usize, seed: u64) -> Result<PhaseSpec> {
        if !matches!((features, hidden), (2, 1) | (3, 2)) {
            return Err(Error::Config(toy::phase_shape(features, hidden)));
        }
        if !(2..=MAX_SIDE).contains(&side) {
            return Err(Error::Config(toy::phase_size(MAX_SIDE, side)));
        }
        Ok(PhaseSpec { features, hidden, side, seed })
    }

    pub fn cells(&self) -> usize {
        self.side * self.side
    }

    /// Cell `index`'s density and importance: row by row from the densest, each row from the
    /// least important extra feature to the most.
    pub fn place(&self, index: usize) -> (f32, f32) {
        let (row, col) = (index / self.side, index % self.side);
        let along = |i: usize| i as f32 / (self.side - 1) as f32;
        (10f32.powf(-2.0 * along(row)), 10f32.powf(-1.0 + 2.0 * along(col)))
    }

    /// Try `attempt` of cell `index`: short, at a high rate, as the grid has hundreds of cells.
    fn recipe(&self, index: usize, attempt: usize) -> TrainConfig {
        TrainConfig {
            batch_size: 128,
            max_iters: CELL_STEPS,
            learning_rate: 1e-2,
            min_lr: 1e-2,
            eval_interval: Some(CELL_STEPS),
            // The attempts are compared on 4,096 rows: on fewer, a sparse cell's few firings choose.
            eval_iters: 32,
            seed: (self.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .wrapping_add(attempt as u64 * 0x5851_F42D_4C95_7F2D),
            ..ToyRun::recipe()
        }
    }

    /// Trains cell `index`'s model and says what became of its extra feature.
    pub fn cell(&self, index: usize) -> Result<Cell> {
        PhaseSpec::new(self.features, self.hidden, self.side, self.seed)?; // as the page sent it, unchecked
        if index >= self.cells() {
            return Err(Error::Data(toy::no_cell(self.cells(), index)));
        }
        let (density, importance) = self.place(index);
        let settings = ToySettings {
            features: self.features,
            hidden: self.hidden,
            sparsity: 1.0 - density,
            importance_decay: 1.0,
            last_importance: Some(importance),
            variant: Variant::ReluOutput,
        };
        let mut best: Option<(f32, Geometry)> = None;
        for attempt in 0..ATTEMPTS {
            let mut run = ToyRun::new(settings, self.recipe(index, attempt))?;
            run.train(usize::MAX, &|| 0.0)?;
            let loss = run.trainer().history().evals.last().map_or(f32::INFINITY, |e| e.val_loss);
            if best.as_ref().is_none_or(|(lowest, _)| loss < *lowest) {
                best = Some((loss, run.geometry()));
            }
        }
        let g = best.expect("at least one attempt").1;
        let extra = self.features - 1;
        Ok(Cell {
            index,
            density,
            importance,
            phase: classify(&g, extra),
            norm: g.norms[extra],
            dimensionality: g.dimensionality[extra],
        })
    }
}

/// A norm past this is a feature stored; a dimensionality past this, one stored alone.
const STORED: f32 = 0.5;
const ALONE: f32 = 0.75;

/// What the model did with feature `i`.
fn classify(g: &Geometry, i: usize) -> Phase {
    if g.norms[i] < STORED {
        Phase::NotStored
    } else if g.dimensionality[i] > ALONE {
        Phase::Alone
    } else {
        Phase::Superposed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Elhage's three regions in the 2-in-1 diagram: dense, the more important feature takes the
    /// dimension (the extra one alone where it matters more, not stored where it matters less);
    /// sparse and of like importance, the two share it in superposition.
    #[test]
    fn two_features_in_one_dimension_show_elhages_three_regions() {
        let spec = PhaseSpec::new(2, 1, 5, 1).unwrap();
        let at = |row: usize, col: usize| spec.cell(row * 5 + col).unwrap();
        assert_eq!(at(0, 0).phase, Phase::NotStored, "dense, the extra feature a tenth as important");
        assert_eq!(at(0, 4).phase, Phase::Alone, "dense, ten times as important");
        assert_eq!(at(4, 2).phase, Phase::Superposed, "sparse (1% dense), as important as the other");
    }

    #[test]
    fn a_diagram_of_another_shape_or_size_says_which() {
        assert!(PhaseSpec::new(4, 2, 10, 1).unwrap_err().to_string().contains("2 features in 1"));
        assert!(PhaseSpec::new(2, 1, 1, 1).unwrap_err().to_string().contains("side"));
        assert!(PhaseSpec::new(2, 1, 4, 1).unwrap().cell(16).is_err());
    }
}
