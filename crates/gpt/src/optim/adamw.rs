//! AdamW, as PyTorch's `torch.optim.AdamW`: nanoGPT's optimiser, for every parameter.

use super::floor::{floored, MOMENT_FLOOR, SQUARE_FLOOR};
use super::optimizer::{Hyper, Optimizer, OptimizerKind, ParamRate, Piece, Rates, Saved};
use crate::error::{Error, Result};
use crate::params::Params;
use crate::words::files;
use ndarray::ArrayD;

/// AdamW's ε, PyTorch's default.
pub const EPS: f32 = 1e-8;

/// AdamW as the settings name it: no settings of its own beyond the shared ones.
pub static KIND: OptimizerKind = OptimizerKind {
    name: "adamw",
    title: "AdamW",
    fields: &[],
    errors: |_| vec![],
    create: |params, hyper| Box::new(AdamW::new(params, hyper.beta1, hyper.beta2, hyper.weight_decay)),
    compute: |_, _| {},
};

/// Decoupled-weight-decay Adam. Its moments are kept per parameter, in the parameters' order.
#[derive(Clone, Debug)]
pub struct AdamW {
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    pub weight_decay: f32,
    /// Steps taken so far (PyTorch's `step`).
    pub t: u64,
    /// The parameters' names, which name the moments in a checkpoint.
    names: Vec<String>,
    pub m: Vec<ArrayD<f32>>,
    pub v: Vec<ArrayD<f32>>,
}

impl AdamW {
    /// Zeroed moments shaped like `params`.
    pub fn new(params: &Params, beta1: f32, beta2: f32, weight_decay: f32) -> AdamW {
        let zeros = || params.values.iter().map(|p| ArrayD::zeros(p.raw_dim())).collect();
        let names = params.names.clone();
        AdamW { beta1, beta2, eps: EPS, weight_decay, t: 0, names, m: zeros(), v: zeros() }
    }

    /// One update at learning rate `lr` from `grads`, every parameter's gradient in one flat
    /// buffer (see [`Params`]). As nanoGPT, only tensors of 2 or more dimensions (matrices and
    /// embeddings) decay; biases and norm weights do not.
    pub fn step(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], lr: f32) {
        self.step_except(params, grads, lr, &[]);
    }

    /// [`AdamW::step`] for every parameter but those numbered in `others` (another optimiser's,
    /// sorted), whose moments stay as they are.
    pub fn step_except(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], lr: f32, others: &[usize]) {
        self.t += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        // PyTorch computes the bias corrections in double precision.
        let bc1 = 1.0 - (b1 as f64).powi(self.t as i32);
        let bc2_sqrt = ((1.0 - (b2 as f64).powi(self.t as i32)).sqrt()) as f32;
        let step_size = (lr as f64 / bc1) as f32;
        let mut rest = grads;
        for (i, ((p, m), v)) in params.iter_mut().zip(&mut self.m).zip(&mut self.v).enumerate() {
            let (g, tail) = rest.split_at(p.len());
            rest = tail;
            if others.binary_search(&i).is_ok() {
                continue;
            }
            let decay = if p.ndim() >= 2 { 1.0 - lr * self.weight_decay } else { 1.0 };
            let eps = self.eps;
            // Flat slices, not ndarray's Zip over four arrays, so the loop vectorises.
            let (p, m, v) = (flat(p), flat(m), flat(v));
            for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m).zip(v) {
                *p *= decay;
                *m = floored(*m + (1.0 - b1) * (g - *m), MOMENT_FLOOR);
                *v = floored(*v * b2 + (1.0 - b2) * g * g, SQUARE_FLOOR);
                *p -= step_size * *m / (v.sqrt() / bc2_sqrt + eps);
            }
        }
    }

    /// The moments as named tensors: `exp_avg.{param}` and `exp_avg_sq.{param}`, PyTorch's names.
    pub(super) fn moments(&self) -> Vec<(String, &ArrayD<f32>)> {
        let mut named = Vec::with_capacity(2 * self.names.len());
        for ((name, m), v) in self.names.iter().zip(&self.m).zip(&self.v) {
            named.push((format!("exp_avg.{name}"), m));
            named.push((format!("exp_avg_sq.{name}"), v));
        }
        named
    }

    /// Takes saved moments back: every parameter's must be there.
    pub(super) fn restore_moments(&mut self, saved: Saved) -> Result<()> {
        for (i, name) in self.names.iter().enumerate() {
            for (kind, moments) in [("exp_avg", &mut self.m), ("exp_avg_sq", &mut self.v)] {
                let key = format!("{kind}.{name}");
                let shape = moments[i].shape().to_vec();
                moments[i] = saved(&key, &shape)?.ok_or_else(|| Error::Format(files::no_optimizer_tensor(key)))?;
            }
        }
        Ok(())
    }
}

impl Optimizer for AdamW {
    fn kind(&self) -> &'static OptimizerKind {
        &KIND
    }

    fn finish(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], rates: Rates, _pieces: Vec<Piece>) {
        self.step(params, grads, rates.lr);
    }

    fn state(&self) -> Vec<(String, &ArrayD<f32>)> {
        self.moments()
    }

    fn restore(&mut self, saved: Saved) -> Result<()> {
        self.restore_moments(saved)
    }

    fn steps(&self) -> u64 {
        self.t
    }

    fn set_steps(&mut self, steps: u64) {
        self.t = steps;
    }

    fn retune(&mut self, hyper: &Hyper) {
        (self.beta1, self.beta2, self.weight_decay) = (hyper.beta1, hyper.beta2, hyper.weight_decay);
    }

    fn param_rates(&self, rates: Rates) -> Vec<ParamRate> {
        vec![ParamRate { optimizer: KIND.name, base: rates.lr, lr: rates.lr }; self.m.len()]
    }

    fn boxed_clone(&self) -> Box<dyn Optimizer> {
        Box::new(self.clone())
    }
}

/// A standard-layout array's elements as one slice (a parameter's, or an optimiser's state's).
pub(super) fn flat(a: &mut ArrayD<f32>) -> &mut [f32] {
    a.as_slice_mut().expect("parameters and moments are kept in standard layout")
}
