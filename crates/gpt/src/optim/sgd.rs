//! Stochastic gradient descent, as PyTorch's `torch.optim.SGD` with momentum (no dampening, no
//! Nesterov): for every parameter, with nanoGPT's groups (weight decay, added to the gradient as
//! SGD's L2 penalty, only on tensors of 2 or more dimensions). The optimiser of the toy-model
//! studies (Chen et al. 2023 train the toy model of superposition with it).

use super::adamw::flat;
use super::floor::{floored, MOMENT_FLOOR};
use super::optimizer::{Hyper, Optimizer, OptimizerKind, ParamRate, Piece, Rates, Saved};
use crate::error::{Error, Result};
use crate::fields::Field;
use crate::params::Params;
use crate::words::files;
use ndarray::ArrayD;

/// SGD as the settings name it, with its momentum (0: plain SGD).
pub static KIND: OptimizerKind = OptimizerKind {
    name: "sgd",
    title: "SGD",
    fields: &[Field::number(
        "sgd_momentum",
        "SGD momentum",
        "How much of each step's direction carries into the next, as torch.optim.SGD's momentum; 0 is plain SGD",
        (0.0, 1.0),
        true,
        0.0,
    )],
    errors: |_| vec![],
    create: |params, hyper| Box::new(Sgd::new(params, hyper)),
    compute: |_, _| {},
};

/// SGD's state: a momentum buffer per parameter, in the parameters' order.
#[derive(Clone, Debug)]
pub struct Sgd {
    pub momentum: f32,
    pub weight_decay: f32,
    /// Steps taken so far.
    pub t: u64,
    /// The parameters' names, which name the buffers in a checkpoint.
    names: Vec<String>,
    pub buffers: Vec<ArrayD<f32>>,
}

impl Sgd {
    /// Zeroed buffers shaped like `params`.
    pub fn new(params: &Params, hyper: &Hyper) -> Sgd {
        let buffers = params.values.iter().map(|p| ArrayD::zeros(p.raw_dim())).collect();
        let (momentum, weight_decay) = (hyper.own.number("sgd_momentum") as f32, hyper.weight_decay);
        Sgd { momentum, weight_decay, t: 0, names: params.names.clone(), buffers }
    }

    /// One update at rate `lr`: g + λw (λ on 2-D tensors only) into the buffer, b ← μb + g (b = g
    /// at the first step, as PyTorch starts it), then w ← w − lr b.
    pub fn step(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], lr: f32) {
        let mu = if self.t == 0 { 0.0 } else { self.momentum };
        self.t += 1;
        let mut rest = grads;
        for (p, b) in params.iter_mut().zip(&mut self.buffers) {
            let (g, tail) = rest.split_at(p.len());
            rest = tail;
            let decay = if p.ndim() >= 2 { self.weight_decay } else { 0.0 };
            let (p, b) = (flat(p), flat(b));
            for ((p, &g), b) in p.iter_mut().zip(g).zip(b) {
                *b = floored(mu * *b + (g + decay * *p), MOMENT_FLOOR);
                *p -= lr * *b;
            }
        }
    }
}

impl Optimizer for Sgd {
    fn kind(&self) -> &'static OptimizerKind {
        &KIND
    }

    fn finish(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], rates: Rates, _pieces: Vec<Piece>) {
        self.step(params, grads, rates.lr);
    }

    /// The buffers as `momentum_buffer.{param}`, PyTorch's name.
    fn state(&self) -> Vec<(String, &ArrayD<f32>)> {
        self.names.iter().zip(&self.buffers).map(|(n, b)| (format!("momentum_buffer.{n}"), b)).collect()
    }

    fn restore(&mut self, saved: Saved) -> Result<()> {
        for (name, buffer) in self.names.iter().zip(&mut self.buffers) {
            let key = format!("momentum_buffer.{name}");
            let shape = buffer.shape().to_vec();
            *buffer = saved(&key, &shape)?.ok_or_else(|| Error::Format(files::no_optimizer_tensor(key)))?;
        }
        Ok(())
    }

    fn steps(&self) -> u64 {
        self.t
    }

    fn set_steps(&mut self, steps: u64) {
        self.t = steps;
    }

    fn retune(&mut self, hyper: &Hyper) {
        (self.momentum, self.weight_decay) = (hyper.own.number("sgd_momentum") as f32, hyper.weight_decay);
    }

    fn param_rates(&self, rates: Rates) -> Vec<ParamRate> {
        vec![ParamRate { optimizer: KIND.name, base: rates.lr, lr: rates.lr }; self.buffers.len()]
    }

    fn boxed_clone(&self) -> Box<dyn Optimizer> {
        Box::new(self.clone())
    }
}
