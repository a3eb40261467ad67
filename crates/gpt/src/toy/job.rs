//! What a toy worker trains, one job at a time: a toy model of superposition, or an autoencoder on
//! activations of known features (built, or a trained toy model's hidden layer). The page's one
//! handle on either: made from a job, trained a few steps at a time, asked where it stands.

use super::autoencoder::{SaeStatus, SyntheticSae};
use super::data::ToySettings;
use super::hidden::ToyHidden;
use super::known::Known;
use super::run::{ToyRun, ToyStatus};
use super::synthetic::Synthetic;
use super::synthetic_spec::SyntheticSpec;
use crate::error::{Error, Result};
use crate::sae::Architecture;
use crate::words::toy;
use serde::{Deserialize, Serialize};

/// True features the page shows against their latents at most: a grid of more is not read.
pub const SHOWN: usize = 32;
/// The most weights in one matrix of a toy job (64 MiB of floats): the true features' directions,
/// or the autoencoder's decoder. More would not fit a tab's memory beside its copies and moments.
pub const MAX_WEIGHTS: usize = 1 << 24;

/// A toy worker's job.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToyJob {
    /// A toy model of `settings`, `steps` steps by Elhage's recipe from `seed`.
    Model { settings: ToySettings, steps: usize, seed: u32 },
    /// An autoencoder of `architecture`, `expansion` latents per dimension, on `source`, `steps`
    /// steps from `seed`.
    Autoencoder { source: KnownSource, architecture: Architecture, expansion: usize, steps: usize, seed: u32 },
}

/// Where an autoencoder's activations of known features come from.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KnownSource {
    /// Built as SAELens's generator builds them.
    Synthetic { spec: SyntheticSpec },
    /// The hidden layer of a toy model of `settings` whose weights are `w` (features × hidden).
    Hidden { settings: ToySettings, w: Vec<f32> },
}

/// A job in training.
pub enum ToyWork {
    Model(ToyRun),
    Autoencoder(SyntheticSae<Box<dyn Known>>),
}

/// Where a job stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToyProgress {
    Model(ToyStatus),
    Autoencoder(SaeStatus),
}

impl ToyWork {
    /// The job ready to train, or why it cannot be.
    pub fn new(job: ToyJob) -> Result<ToyWork> {
        Ok(match job {
            ToyJob::Model { settings, steps, seed } => {
                ToyWork::Model(ToyRun::new(settings, ToyRun::recipe_for(steps, seed.into()))?)
            }
            ToyJob::Autoencoder { source, architecture, expansion, steps, seed } => {
                let dims = match &source {
                    KnownSource::Synthetic { spec } => {
                        fits(spec.features.saturating_mul(spec.dims))?;
                        spec.dims
                    }
                    KnownSource::Hidden { settings, .. } => settings.hidden,
                };
                fits(expansion.saturating_mul(dims).saturating_mul(dims))?;
                let source: Box<dyn Known> = match source {
                    KnownSource::Synthetic { spec } => Box::new(Synthetic::new(spec)?),
                    KnownSource::Hidden { settings, w } => Box::new(ToyHidden::from_parts(settings, w)?),
                };
                let (config, recipe) =
                    (SyntheticSae::config(architecture, expansion), SyntheticSae::recipe(steps, seed.into()));
                ToyWork::Autoencoder(SyntheticSae::on(source, config, recipe)?)
            }
        })
    }

    /// Up to `n` more steps on one thread; whether every step is taken. A step that diverges is an
    /// error in the reader's words.
    pub fn train(&mut self, n: usize, now_ms: &dyn Fn() -> f64) -> Result<bool> {
        Ok(match self {
            ToyWork::Model(run) => run.train(n, now_ms).map(|_| run.done())?,
            ToyWork::Autoencoder(sae) => sae.train(n, 1, now_ms).map(|_| sae.done())?,
        })
    }

    pub fn progress(&self) -> ToyProgress {
        match self {
            ToyWork::Model(run) => ToyProgress::Model(run.status()),
            ToyWork::Autoencoder(sae) => ToyProgress::Autoencoder(sae.status(SHOWN)),
        }
    }
}

/// Whether a matrix of `weights` fits a toy job, and if not, why not.
fn fits(weights: usize) -> Result<()> {
    if weights > MAX_WEIGHTS {
        return Err(Error::Config(toy::too_many_weights(MAX_WEIGHTS, weights)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::Firing;

    /// The page's default: 64 features pushed apart in 32 dimensions, each firing one row in 20,
    /// all found by a TopK autoencoder of 128 latents, 4 firing per row (64 latents find about 85%).
    #[test]
    fn the_pages_autoencoder_finds_the_features_and_the_grid_shows_them_matched() {
        let firing = Firing::Equal { probability: 0.05 };
        let spec = SyntheticSpec { features: 64, dims: 32, orthogonal: true, firing, ..Default::default() };
        let architecture = Architecture::TopK { k: 4, aux_coefficient: 1.0 };
        let source = KnownSource::Synthetic { spec };
        let mut work =
            ToyWork::new(ToyJob::Autoencoder { source, architecture, expansion: 4, steps: 1000, seed: 1 }).unwrap();
        while !work.train(200, &|| 0.0).unwrap() {}
        let ToyProgress::Autoencoder(status) = work.progress() else {
            panic!("an autoencoder's job reports an autoencoder's progress")
        };
        assert!(status.scores.truth.mcc > 0.95 && status.scores.truth.found == 1.0, "{:?}", status.scores);
        assert_eq!(
            (status.scores.step, status.grid.latents.len(), status.grid.cosines.len()),
            (1000, SHOWN, SHOWN * SHOWN)
        );
        let diagonal: Vec<f32> = (0..SHOWN).map(|i| status.grid.cosines[i * SHOWN + i]).collect();
        let truth = &status.scores.truth;
        assert!(diagonal.iter().zip(&truth.best_cosine).all(|(d, b)| d <= b && *d > 0.8), "{diagonal:?}");
    }

    /// A hidden layer whose weights do not fit its settings is refused, not read past its end.
    #[test]
    fn a_hidden_layer_of_the_wrong_size_is_refused() {
        let source = KnownSource::Hidden { settings: ToySettings::default(), w: vec![0.5; 7] };
        let job = ToyJob::Autoencoder {
            source,
            architecture: Architecture::TopK { k: 1, aux_coefficient: 1.0 },
            expansion: 2,
            steps: 10,
            seed: 1,
        };
        let error = ToyWork::new(job).err().expect("refused").to_string();
        assert!(error.contains("10 finite weights") && error.contains("not 7"), "{error}");
    }

    /// Activations or an autoencoder too large for a tab are refused in words before anything is
    /// allocated.
    #[test]
    fn a_toy_job_too_large_for_the_tab_is_refused() {
        let architecture = Architecture::TopK { k: 4, aux_coefficient: 1.0 };
        let job = |features, dims, expansion| {
            let source = KnownSource::Synthetic { spec: SyntheticSpec { features, dims, ..Default::default() } };
            ToyWork::new(ToyJob::Autoencoder { source, architecture, expansion, steps: 10, seed: 1 })
                .err()
                .map(|e| e.to_string())
        };
        let too_many = job(65536, 4096, 1).expect("refused");
        assert!(too_many.contains("268435456 weights") && too_many.contains("fewer"), "{too_many}");
        assert!(job(256, 4096, 64).expect("refused").contains("1073741824 weights"));
        assert_eq!(job(256, 64, 8), None);
    }
}
