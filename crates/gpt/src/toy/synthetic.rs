//! Activations built from features known by construction, as SAELens's `sae_lens.synthetic`
//! builds them: `n` features, each a unit direction in `d` dimensions (orthogonal, or random),
//! each firing in a row with its own probability (all alike, or Zipf's law from the most frequent
//! to the least), with a magnitude `ReLU(mean + std · N(0, 1))` when it fires; optionally in a
//! hierarchy, each parent followed by its children, a child firing only when its parent does;
//! optionally correlated, features firing together through a copula (`correlation.rs`). A
//! row of activations is the firing features' magnitudes times their directions. An autoencoder
//! trained on them ([`crate::sae::Source`]) is scored against the directions (`truth.rs`).

use super::correlation::Copula;
use super::known::{Known, Rows};
use super::orthogonal::orthogonalize;
use super::synthetic_spec::SyntheticSpec;
use crate::error::Result;
use crate::rng::Rng;

/// The true features and how they fire.
#[derive(Clone, Debug)]
pub struct Synthetic {
    spec: SyntheticSpec,
    /// (n, d) row by row: each feature's unit direction.
    directions: Vec<f32>,
    probabilities: Vec<f32>,
    copula: Option<Copula>,
}

/// Mixed into a row's seed so that its stream is its own.
const ROW_STREAM: u64 = 0x73_79_6e_74_68_65_74_69;

impl Synthetic {
    pub fn new(spec: SyntheticSpec) -> Result<Synthetic> {
        spec.validate()?;
        let (n, d) = (spec.features, spec.dims);
        let mut rng = Rng::new(spec.seed);
        let mut directions: Vec<f32> = (0..n * d).map(|_| rng.normal()).collect();
        let exactly = spec.orthogonal && n <= d;
        for i in 0..n {
            let (done, rest) = directions.split_at_mut(i * d);
            let row = &mut rest[..d];
            if exactly {
                for earlier in done.chunks(d) {
                    let along: f32 = earlier.iter().zip(row.iter()).map(|(a, b)| a * b).sum();
                    row.iter_mut().zip(earlier).for_each(|(r, e)| *r -= along * e);
                }
            }
            let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            row.iter_mut().for_each(|x| *x /= norm);
        }
        if spec.orthogonal && !exactly {
            orthogonalize(&mut directions, d);
        }
        let probabilities = spec.probabilities();
        let copula = spec.correlation.map(|c| Copula::new(c, &probabilities, spec.seed));
        Ok(Synthetic { probabilities, spec, directions, copula })
    }

    pub fn spec(&self) -> &SyntheticSpec {
        &self.spec
    }

    /// (n, d) row by row: the true features' directions.
    pub fn directions(&self) -> &[f32] {
        &self.directions
    }

    pub fn probabilities(&self) -> &[f32] {
        &self.probabilities
    }

    pub fn copula(&self) -> Option<&Copula> {
        self.copula.as_ref()
    }

    /// Each row's features as they fire (rows × n): a row's seed draws them.
    pub fn firing_of(&self, seeds: &[usize]) -> Vec<f32> {
        let n = self.spec.features;
        let mut out = vec![0.0; seeds.len() * n];
        let mut correlated = vec![false; n];
        for (row, &seed) in out.chunks_mut(n).zip(seeds) {
            let mut rng = Rng::new(ROW_STREAM ^ seed as u64);
            if let Some(copula) = &self.copula {
                copula.draw(&mut rng, &mut correlated);
            }
            for (i, &p) in self.probabilities.iter().enumerate() {
                let fires = if self.copula.is_some() { correlated[i] } else { rng.uniform() < p };
                let noise = rng.normal();
                // A child fires only with its parent, which comes before it in the row.
                if fires && self.spec.parent(i).is_none_or(|parent| row[parent] > 0.0) {
                    row[i] = (self.spec.magnitude_mean + self.spec.magnitude_std * noise).max(0.0);
                }
            }
        }
        out
    }

    /// Each row's activations (rows × d): its firing features' magnitudes times their directions.
    pub fn activations(&self, seeds: &[usize]) -> Vec<f32> {
        let d = self.spec.dims;
        let firing = self.firing_of(seeds);
        let mut out = vec![0.0; seeds.len() * d];
        for (row, acts) in out.chunks_mut(d).zip(firing.chunks(self.spec.features)) {
            for (&a, direction) in acts.iter().zip(self.directions.chunks(d)).filter(|(a, _)| **a > 0.0) {
                row.iter_mut().zip(direction).for_each(|(r, x)| *r += a * x);
            }
        }
        out
    }
}

/// Rows of activations one per seed.
impl Rows for Synthetic {
    fn dims(&self) -> usize {
        self.spec.dims
    }

    fn rows(&self, seeds: &[usize]) -> Vec<f32> {
        self.activations(seeds)
    }

    fn held(&self) -> Vec<&[f32]> {
        let copula = self.copula.iter().flat_map(Copula::parts);
        [&self.directions[..], &self.probabilities].into_iter().chain(copula).collect()
    }

    fn held_mut(&mut self) -> Vec<&mut [f32]> {
        let copula = self.copula.iter_mut().flat_map(Copula::parts_mut);
        [&mut self.directions[..], &mut self.probabilities].into_iter().chain(copula).collect()
    }
}

/// Training rows are seeds from 0, held-out rows seeds from 2^31 ([`super::ToyData`] draws training
/// seeds below it).
impl Known for Synthetic {
    fn truth(&self) -> &[f32] {
        &self.directions
    }

    fn held_out(&self, rows: usize) -> (Vec<f32>, Option<Vec<f32>>) {
        let seeds: Vec<usize> = (HELD_OUT..HELD_OUT + rows).collect();
        (self.activations(&seeds), Some(self.firing_of(&seeds)))
    }

    fn parent(&self, i: usize) -> Option<usize> {
        self.spec.parent(i)
    }
}

/// The first held-out row's seed.
const HELD_OUT: usize = 1 << 31;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::{truth, Firing};

    const ROWS: usize = 40_000;

    fn rates(s: &Synthetic) -> Vec<f32> {
        let firing = s.firing_of(&(0..ROWS).collect::<Vec<_>>());
        let n = s.spec().features;
        (0..n).map(|i| firing.chunks(n).filter(|row| row[i] > 0.0).count() as f32 / ROWS as f32).collect()
    }

    #[test]
    fn each_feature_fires_as_often_as_configured_and_zipf_runs_from_most_to_least() {
        let equal = Synthetic::new(SyntheticSpec {
            features: 8,
            dims: 4,
            firing: Firing::Equal { probability: 0.2 },
            ..Default::default()
        });
        assert!(rates(&equal.unwrap()).iter().all(|r| (r - 0.2).abs() < 0.01));
        let firing = Firing::Zipf { exponent: 1.0, max: 0.3, min: 0.01 };
        let zipf = Synthetic::new(SyntheticSpec { features: 6, dims: 4, firing, ..Default::default() }).unwrap();
        assert_eq!((zipf.probabilities()[0], zipf.probabilities()[5]), (0.3, 0.01));
        assert!(zipf.probabilities().windows(2).all(|w| w[0] > w[1]));
        for (rate, p) in rates(&zipf).iter().zip(zipf.probabilities()) {
            assert!((rate - p).abs() < 0.01, "{rate} against {p}");
        }
    }

    #[test]
    fn a_child_fires_only_with_its_parent() {
        let spec = SyntheticSpec {
            features: 9,
            dims: 9,
            children: 2,
            firing: Firing::Equal { probability: 0.3 },
            ..Default::default()
        };
        let s = Synthetic::new(spec).unwrap();
        assert_eq!(
            (0..9).map(|i| spec.parent(i)).collect::<Vec<_>>(),
            [None, Some(0), Some(0), None, Some(3), Some(3), None, Some(6), Some(6)]
        );
        let firing = s.firing_of(&(0..ROWS).collect::<Vec<_>>());
        for row in firing.chunks(9) {
            for i in 0..9 {
                if let Some(parent) = spec.parent(i) {
                    assert!(row[i] == 0.0 || row[parent] > 0.0, "child {i} fired without parent {parent}");
                }
            }
        }
        let r = rates(&s);
        assert!((r[0] - 0.3).abs() < 0.01 && (r[1] - 0.09).abs() < 0.01, "{r:?}");
    }

    #[test]
    fn correlated_features_keep_their_rates_and_fire_together_as_their_loadings_say() {
        let correlation = Some(crate::toy::Correlation { rank: 2, scale: 0.6 });
        let spec = SyntheticSpec {
            features: 6,
            dims: 6,
            correlation,
            firing: Firing::Equal { probability: 0.2 },
            ..Default::default()
        };
        let s = Synthetic::new(spec).unwrap();
        assert!(rates(&s).iter().all(|r| (r - 0.2).abs() < 0.01), "{:?}", rates(&s));
        let firing = s.firing_of(&(0..ROWS).collect::<Vec<_>>());
        let both =
            |i: usize, j: usize| firing.chunks(6).filter(|r| r[i] > 0.0 && r[j] > 0.0).count() as f32 / ROWS as f32;
        let loading = |i: usize, j: usize| {
            let f = s.copula().unwrap().factor();
            f[2 * i] * f[2 * j] + f[2 * i + 1] * f[2 * j + 1]
        };
        let pairs: Vec<(usize, usize)> = (0..6).flat_map(|i| (i + 1..6).map(move |j| (i, j))).collect();
        let most = pairs.iter().copied().max_by(|a, b| loading(a.0, a.1).total_cmp(&loading(b.0, b.1))).unwrap();
        let least = pairs.iter().copied().min_by(|a, b| loading(a.0, a.1).total_cmp(&loading(b.0, b.1))).unwrap();
        assert!(loading(most.0, most.1) > 0.1 && loading(least.0, least.1) < -0.1);
        // Independent features would fire together 0.04 of the time.
        assert!(both(most.0, most.1) > 0.05 && both(least.0, least.1) < 0.03, "{most:?} {least:?}");
    }

    #[test]
    fn orthogonal_directions_are_orthonormal_and_a_row_is_its_features_along_them() {
        let spec = SyntheticSpec { features: 6, dims: 8, orthogonal: true, magnitude_std: 0.5, ..Default::default() };
        let s = Synthetic::new(spec).unwrap();
        let gram = truth::abs_cosines(s.directions(), s.directions(), 8);
        for (k, g) in gram.iter().enumerate() {
            assert!((g - if k / 6 == k % 6 { 1.0 } else { 0.0 }).abs() < 1e-5, "{gram:?}");
        }
        let seeds = [5, 6, 7];
        let (firing, rows) = (s.firing_of(&seeds), s.activations(&seeds));
        for (acts, row) in firing.chunks(6).zip(rows.chunks(8)) {
            for (i, direction) in s.directions().chunks(8).enumerate() {
                let along: f32 = row.iter().zip(direction).map(|(a, b)| a * b).sum();
                assert!((along - acts[i]).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn settings_that_cannot_build_activations_say_which() {
        let bad = |spec: SyntheticSpec| Synthetic::new(spec).unwrap_err().to_string();
        let base = SyntheticSpec::default();
        let crowded = SyntheticSpec { features: 4096, orthogonal: true, ..base };
        assert!(bad(crowded).contains("at most 2048 features can be pushed as nearly orthogonal"), "{}", bad(crowded));
        assert!(
            bad(SyntheticSpec { firing: Firing::Equal { probability: 0.0 }, ..base }).contains("firing probability")
        );
        assert!(
            bad(SyntheticSpec { firing: Firing::Zipf { exponent: 1.0, max: 0.1, min: 0.2 }, ..base }).contains("Zipf")
        );
        assert!(bad(SyntheticSpec { magnitude_mean: -1.0, ..base }).contains("magnitude"));
        assert!(bad(SyntheticSpec { children: 256, ..base }).contains("hierarchy"));
        assert!(bad(SyntheticSpec { dims: 0, ..base }).contains("1 to 4096 dimensions"));
        let correlation = Some(crate::toy::Correlation { rank: 0, scale: 0.1 });
        assert!(bad(SyntheticSpec { correlation, ..base }).contains("1 to 256 factors"));
    }
}
