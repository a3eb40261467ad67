//! Elhage et al.'s (2022) toy model of superposition: `n` sparse features squeezed into `m < n`
//! dimensions and read back out, `h = x W` and `x' = ReLU(h Wᵀ + b)`, trained to reconstruct the
//! features under `Σ_i I_i (x_i − x'_i)²` (a mean over the batch and the features, as their
//! notebook has it). As the features grow sparser it stores more of them than it has dimensions,
//! in regular shapes. Their two other models are here too: the linear one (no ReLU) and one with
//! a ReLU on the hidden layer. Trained by the one trainer (a [`SeededModel`]); each batch row is a
//! seed its features are drawn from ([`super::data`]), so every worker draws the same.
//!
//! # Shapes
//! `W`: (n, m), feature `i`'s direction in the hidden space its row `W_i`; `b`: (n).

use super::data::{features_of, ToySettings, Variant};
use super::seeded::SeededModel;
use crate::error::{Error, Result};
use crate::params::Params;
use crate::rng::Rng;
use ndarray::{ArrayD, IxDyn};

/// `W` and `b`'s indices in the parameters.
const W: usize = 0;
const B: usize = 1;

/// The model: its settings and its two tensors.
#[derive(Clone, Debug)]
pub struct ToyModel {
    settings: ToySettings,
    params: Params,
    /// `I_i`, feature by feature.
    importance: Vec<f32>,
}

impl ToyModel {
    /// A fresh model: `W` by Xavier's normal initialisation (PyTorch's `xavier_normal_`), `b` zero.
    pub fn new(settings: ToySettings, seed: u64) -> Result<ToyModel> {
        settings.validate()?;
        let (n, m) = (settings.features, settings.hidden);
        let mut rng = Rng::new(seed);
        let std = (2.0 / (n + m) as f32).sqrt();
        let w = ArrayD::from_shape_simple_fn(IxDyn(&[n, m]), || std * rng.normal());
        let params = Params { names: vec!["W".into(), "b".into()], values: vec![w, ArrayD::zeros(IxDyn(&[n]))] };
        Ok(ToyModel { importance: settings.importance(), settings, params })
    }

    /// A model with these `W` (n, m, row by row) and `b`: one trained elsewhere, or exported.
    pub fn from_weights(settings: ToySettings, w: &[f32], b: &[f32]) -> Result<ToyModel> {
        let mut model = ToyModel::new(settings, 0)?;
        let (n, m) = (settings.features, settings.hidden);
        if w.len() != n * m || b.len() != n {
            return Err(Error::Data(crate::words::runs::bug(format!(
                "a toy model of {n} × {m} takes W of {} and b of {n}",
                n * m
            ))));
        }
        model.params.values[W].as_slice_mut().expect("fresh").copy_from_slice(w);
        model.params.values[B].as_slice_mut().expect("fresh").copy_from_slice(b);
        Ok(model)
    }

    pub fn settings(&self) -> &ToySettings {
        &self.settings
    }

    /// `W`, (n, m) row by row.
    pub fn w(&self) -> &[f32] {
        self.params.values[W].as_slice().expect("standard layout")
    }

    /// `b`, (n).
    pub fn b(&self) -> &[f32] {
        self.params.values[B].as_slice().expect("standard layout")
    }

    /// The reconstruction `x'` of `x` (rows of n features), and what the backward pass reads: the
    /// hidden layer `h` before its ReLU and the output before its ReLU, row after row.
    fn forward(&self, x: &[f32]) -> Pass {
        let (n, m) = (self.settings.features, self.settings.hidden);
        let (w, b) = (self.w(), self.b());
        let rows = x.len() / n;
        let mut h = vec![0.0; rows * m];
        for (xr, hr) in x.chunks_exact(n).zip(h.chunks_exact_mut(m)) {
            for (xi, wi) in xr.iter().zip(w.chunks_exact(m)) {
                if *xi != 0.0 {
                    hr.iter_mut().zip(wi).for_each(|(h, w)| *h += xi * w);
                }
            }
        }
        let relu_hidden = self.settings.variant == Variant::ReluHidden;
        let read: Vec<f32> = if relu_hidden { h.iter().map(|v| v.max(0.0)).collect() } else { h.clone() };
        let mut z = vec![0.0; rows * n];
        for (hr, zr) in read.chunks_exact(m).zip(z.chunks_exact_mut(n)) {
            for ((z, wi), bi) in zr.iter_mut().zip(w.chunks_exact(m)).zip(b) {
                *z = bi + wi.iter().zip(hr).map(|(w, h)| w * h).sum::<f32>();
            }
        }
        let out =
            if self.settings.variant == Variant::Linear { z.clone() } else { z.iter().map(|v| v.max(0.0)).collect() };
        Pass { h, z, out }
    }

    /// The loss `mean(I (x − x')²)` on `x`; with `grads`, adds `weight` times its gradient into them.
    fn loss(&self, x: &[f32], grads: Option<(&mut [f32], f32)>) -> f32 {
        let (n, m) = (self.settings.features, self.settings.hidden);
        let rows = x.len() / n;
        let pass = self.forward(x);
        let scale = 1.0 / (rows * n) as f32;
        let mut loss = 0.0f64;
        let mut dz = vec![0.0; rows * n];
        for (r, ((xr, or), zr)) in
            x.chunks_exact(n).zip(pass.out.chunks_exact(n)).zip(pass.z.chunks_exact(n)).enumerate()
        {
            for i in 0..n {
                let e = or[i] - xr[i];
                loss += (self.importance[i] * e * e) as f64;
                let through = self.settings.variant == Variant::Linear || zr[i] > 0.0;
                dz[r * n + i] = if through { 2.0 * self.importance[i] * e * scale } else { 0.0 };
            }
        }
        let Some((grads, weight)) = grads else { return loss as f32 * scale };
        let (gw, gb) = grads.split_at_mut(n * m);
        let w = self.w();
        let relu_hidden = self.settings.variant == Variant::ReluHidden;
        let mut dh = vec![0.0; m];
        for (r, dzr) in dz.chunks_exact(n).enumerate() {
            let hr = &pass.h[r * m..(r + 1) * m];
            let xr = &x[r * n..(r + 1) * n];
            // z = read(h) Wᵀ + b: db = dz, dW += dzᵀ read(h), d(read h) = dz W.
            dh.fill(0.0);
            for i in 0..n {
                let d = dzr[i];
                if d == 0.0 {
                    continue;
                }
                gb[i] += weight * d;
                let wi = &w[i * m..(i + 1) * m];
                for k in 0..m {
                    let read = if relu_hidden { hr[k].max(0.0) } else { hr[k] };
                    gw[i * m + k] += weight * d * read;
                    dh[k] += d * wi[k];
                }
            }
            if relu_hidden {
                dh.iter_mut().zip(hr).for_each(|(d, h)| *d = if *h > 0.0 { *d } else { 0.0 });
            }
            // h = x W: dW += xᵀ dh.
            for (i, xi) in xr.iter().enumerate() {
                if *xi != 0.0 {
                    gw[i * m..(i + 1) * m].iter_mut().zip(&dh).for_each(|(g, d)| *g += weight * xi * d);
                }
            }
        }
        loss as f32 * scale
    }
}

/// What one forward pass keeps: the hidden layer and the output before their ReLUs, and the output.
struct Pass {
    h: Vec<f32>,
    z: Vec<f32>,
    out: Vec<f32>,
}

impl SeededModel for ToyModel {
    fn params(&self) -> &Params {
        &self.params
    }

    fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    fn seeded_loss(&self, seeds: &[usize], grads: Option<(&mut [f32], f32)>) -> f32 {
        self.loss(&features_of(&self.settings, seeds), grads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(variant: Variant) -> ToySettings {
        ToySettings { features: 5, hidden: 2, sparsity: 0.7, importance_decay: 0.9, last_importance: None, variant }
    }

    /// Every gradient against central finite differences, for each variant.
    #[test]
    fn gradients_match_finite_differences() {
        for variant in [Variant::ReluOutput, Variant::Linear, Variant::ReluHidden] {
            let model = ToyModel::new(settings(variant), 3).unwrap();
            let x = features_of(model.settings(), &[11, 12, 13, 14, 15, 16]);
            let mut grads = vec![0.0; model.params.count()];
            model.loss(&x, Some((&mut grads, 1.0)));
            let mut probe = model.clone();
            let eps = 1e-3;
            for (j, &analytic) in grads.iter().enumerate() {
                let at = |m: &mut ToyModel, v: f32| {
                    let (t, k) = if j < 10 { (W, j) } else { (B, j - 10) };
                    m.params.values[t].as_slice_mut().unwrap()[k] = v;
                };
                let orig = if j < 10 { model.w()[j] } else { model.b()[j - 10] };
                at(&mut probe, orig + eps);
                let up = probe.loss(&x, None) as f64;
                at(&mut probe, orig - eps);
                let down = probe.loss(&x, None) as f64;
                at(&mut probe, orig);
                let numeric = ((up - down) / (2.0 * eps as f64)) as f32;
                assert!(
                    (numeric - analytic).abs() < 2e-3 + 1e-2 * numeric.abs(),
                    "{variant:?} param {j}: {numeric} vs {analytic}"
                );
            }
        }
    }

    #[test]
    fn knowing_nothing_costs_the_mean_importance_times_the_feature_share_over_three() {
        let model = ToyModel::from_weights(settings(Variant::ReluOutput), &[0.0; 10], &[0.0; 5]).unwrap();
        let seeds: Vec<usize> = (0..20_000).collect();
        let x = features_of(model.settings(), &seeds);
        let measured = model.loss(&x, None);
        let importance = model.settings().importance();
        let present = 1.0 - model.settings().sparsity;
        let expected = importance.iter().sum::<f32>() / importance.len() as f32 * present / 3.0;
        assert!((measured - expected).abs() < 0.01 * expected, "{measured} vs {expected}");
    }
}
