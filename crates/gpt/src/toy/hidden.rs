//! The toy model's hidden layer as activations of known features: a row is `h = W x` for a row of
//! features `x`, so feature i's true direction is `W`'s row i (Elhage et al.'s "features as
//! directions"), and its activation is `x_i`. An autoencoder on it shows whether it recovers the
//! features the model stored in superposition.

use super::data::{features_of, ToySettings};
use super::known::{Known, Rows};
use super::superposition::ToyModel;
use crate::error::{Error, Result};
use crate::words::toy;

/// A trained toy model's hidden layer, rows drawn by seed as the model's were.
#[derive(Clone, Debug)]
pub struct ToyHidden {
    settings: ToySettings,
    /// `W`, (n, m) row by row: the true features' directions.
    w: Vec<f32>,
}

/// The first held-out row's seed, as [`super::ToyData`]'s held-out rows.
const HELD_OUT: usize = 1 << 31;

impl ToyHidden {
    pub fn new(model: &ToyModel) -> ToyHidden {
        ToyHidden { settings: *model.settings(), w: model.w().to_vec() }
    }

    /// The hidden layer of a model of `settings` whose `W` is `w` (as the page holds the last one
    /// it trained), refused if `w` does not fit them.
    pub fn from_parts(settings: ToySettings, w: Vec<f32>) -> Result<ToyHidden> {
        settings.validate()?;
        let want = settings.features * settings.hidden;
        if w.len() != want || w.iter().any(|x| !x.is_finite()) {
            return Err(Error::Config(toy::hidden_weights(want, w.len())));
        }
        Ok(ToyHidden { settings, w })
    }

    /// The hidden layer `h = W x` of each row of features (rows × m).
    fn hidden(&self, x: &[f32]) -> Vec<f32> {
        let (n, m) = (self.settings.features, self.settings.hidden);
        let mut h = vec![0.0; x.len() / n * m];
        for (xr, hr) in x.chunks_exact(n).zip(h.chunks_exact_mut(m)) {
            for (&xi, wi) in xr.iter().zip(self.w.chunks_exact(m)).filter(|(xi, _)| **xi != 0.0) {
                hr.iter_mut().zip(wi).for_each(|(h, w)| *h += xi * w);
            }
        }
        h
    }
}

impl Rows for ToyHidden {
    fn dims(&self) -> usize {
        self.settings.hidden
    }

    fn rows(&self, seeds: &[usize]) -> Vec<f32> {
        self.hidden(&features_of(&self.settings, seeds))
    }

    fn held(&self) -> Vec<&[f32]> {
        vec![&self.w]
    }

    fn held_mut(&mut self) -> Vec<&mut [f32]> {
        vec![&mut self.w]
    }
}

impl Known for ToyHidden {
    fn truth(&self) -> &[f32] {
        &self.w
    }

    fn held_out(&self, rows: usize) -> (Vec<f32>, Option<Vec<f32>>) {
        let seeds: Vec<usize> = (HELD_OUT..HELD_OUT + rows).collect();
        let x = features_of(&self.settings, &seeds);
        (self.hidden(&x), Some(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sae::{Architecture, SaeConfig};
    use crate::toy::{SyntheticSae, ToyRun};

    /// Elhage's pentagon: five features in two dimensions. An autoencoder of ten latents, one
    /// firing per row, on the hidden layer finds the five directions the model stored.
    #[test]
    fn an_autoencoder_on_the_pentagons_hidden_layer_finds_its_five_features() {
        let mut run = ToyRun::new(ToySettings::default(), ToyRun::recipe_for(3000, 1)).unwrap();
        while !run.done() {
            run.train(500, &|| 0.0).unwrap();
        }
        let hidden = ToyHidden::new(run.model());
        let x = [0.0, 0.5, 0.0, 0.0, 0.0];
        assert_eq!(hidden.hidden(&x), run.model().w()[2..4].iter().map(|w| 0.5 * w).collect::<Vec<_>>());
        let architecture = Architecture::TopK { k: 1, aux_coefficient: 1.0 };
        let config = SaeConfig { expansion: 5, architecture, ..SaeConfig::top_k(0) };
        let mut sae = SyntheticSae::on(hidden, config, SyntheticSae::recipe(1500, 3)).unwrap();
        sae.train(1500, 1, &|| 0.0).unwrap();
        let scores = sae.scores();
        assert!(scores.truth.found == 1.0 && scores.truth.mcc > 0.95, "{scores:?}");
    }
}
