//! What a toy model of superposition has learned, as Elhage et al. read it: the features'
//! directions' dot products (`W Wᵀ`, feature × feature) and the bias; each feature's norm
//! `‖W_i‖` (near 1: stored, near 0: not); its dimensionality `D_i = ‖W_i‖² / Σ_j (Ŵ_i · W_j)²`
//! (1 alone in its dimension, 1/2 in an antipodal pair, 2/5 in a pentagon); and how many features
//! each dimension holds, `‖W‖_F² / m`.

use super::superposition::ToyModel;
use serde::Serialize;

/// A norm below this is a feature the model does not store: it has no dimensionality.
const STORED: f32 = 1e-6;

/// The geometry of a toy model's features.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Geometry {
    pub features: usize,
    pub hidden: usize,
    /// `W`, (n, m) row by row: each feature's direction in the hidden space.
    pub w: Vec<f32>,
    /// `b`, (n).
    pub b: Vec<f32>,
    /// `W Wᵀ`, (n, n): `W_i · W_j`.
    pub gram: Vec<f32>,
    /// `‖W_i‖`.
    pub norms: Vec<f32>,
    /// `D_i` (0 for a feature not stored).
    pub dimensionality: Vec<f32>,
    /// `‖W‖_F² / m`: features stored per hidden dimension.
    pub features_per_dimension: f32,
}

impl Geometry {
    pub fn of(model: &ToyModel) -> Geometry {
        let settings = model.settings();
        let (n, m) = (settings.features, settings.hidden);
        let w = model.w();
        let row = |i: usize| &w[i * m..(i + 1) * m];
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let gram: Vec<f32> =
            (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| dot(row(i), row(j))).collect();
        let norms: Vec<f32> = (0..n).map(|i| gram[i * n + i].sqrt()).collect();
        let dimensionality = (0..n)
            .map(|i| {
                if norms[i] < STORED {
                    return 0.0;
                }
                // Σ_j (Ŵ_i · W_j)² = Σ_j (W_i · W_j)² / ‖W_i‖².
                let shared: f32 =
                    (0..n).map(|j| gram[i * n + j] * gram[i * n + j]).sum::<f32>() / (norms[i] * norms[i]);
                norms[i] * norms[i] / shared
            })
            .collect();
        let frobenius: f32 = norms.iter().map(|x| x * x).sum();
        Geometry {
            features: n,
            hidden: m,
            w: w.to_vec(),
            b: model.b().to_vec(),
            gram,
            norms,
            dimensionality,
            features_per_dimension: frobenius / m as f32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::ToySettings;

    fn geometry(n: usize, m: usize, w: &[f32]) -> Geometry {
        let settings = ToySettings { features: n, hidden: m, ..ToySettings::default() };
        Geometry::of(&ToyModel::from_weights(settings, w, &vec![0.0; n]).unwrap())
    }

    #[test]
    fn a_feature_alone_has_dimensionality_one_a_pair_one_half_a_pentagon_two_fifths() {
        // Two features in two dimensions, each alone; one not stored.
        let alone = geometry(3, 2, &[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(alone.dimensionality, vec![1.0, 1.0, 0.0]);
        assert_eq!(alone.features_per_dimension, 1.0);
        // An antipodal pair in one dimension.
        let pair = geometry(2, 1, &[1.0, -1.0]);
        assert_eq!(pair.dimensionality, vec![0.5, 0.5]);
        assert_eq!(pair.features_per_dimension, 2.0);
        // Five unit vectors at the corners of a regular pentagon.
        let pentagon: Vec<f32> = (0..5)
            .flat_map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 5.0;
                [a.cos(), a.sin()]
            })
            .collect();
        let g = geometry(5, 2, &pentagon);
        assert!(g.dimensionality.iter().all(|d| (d - 0.4).abs() < 1e-5), "{:?}", g.dimensionality);
        assert!((g.features_per_dimension - 2.5).abs() < 1e-5);
        assert!((g.gram[1] - (std::f32::consts::TAU / 5.0).cos()).abs() < 1e-6);
    }
}
