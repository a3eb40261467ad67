//! AdamW, as PyTorch's `torch.optim.AdamW`.

use ndarray::ArrayD;

/// Decoupled-weight-decay Adam. Its moments are kept per parameter, in the parameters' order.
#[derive(Clone, Debug)]
pub struct AdamW {
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    pub weight_decay: f32,
    /// Steps taken so far (PyTorch's `step`).
    pub t: u64,
    pub m: Vec<ArrayD<f32>>,
    pub v: Vec<ArrayD<f32>>,
}

impl AdamW {
    /// Zeroed moments shaped like `params`.
    pub fn new(params: &[ArrayD<f32>], beta1: f32, beta2: f32, weight_decay: f32) -> AdamW {
        let zeros = || params.iter().map(|p| ArrayD::zeros(p.raw_dim())).collect();
        AdamW { beta1, beta2, eps: 1e-8, weight_decay, t: 0, m: zeros(), v: zeros() }
    }

    /// One update at learning rate `lr` from `grads`, every parameter's gradient in one flat
    /// buffer (see [`Params`](crate::params::Params)). As nanoGPT, only tensors of 2 or more
    /// dimensions (matrices and embeddings) decay; biases and norm weights do not.
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
                *m += (1.0 - b1) * (g - *m);
                *v = *v * b2 + (1.0 - b2) * g * g;
                *p -= step_size * *m / (v.sqrt() / bc2_sqrt + eps);
            }
        }
    }
}

/// A standard-layout array's elements as one slice.
fn flat(a: &mut ArrayD<f32>) -> &mut [f32] {
    a.as_slice_mut().expect("parameters and moments are kept in standard layout")
}
