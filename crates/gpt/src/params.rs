//! Named parameter tensors, their gradients, and nanoGPT's initialisation.

use crate::error::{Error, Result};
use crate::rng::Rng;
use ndarray::{ArrayD, IxDyn};

/// How a parameter starts.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Init {
    Normal(f32),
    Zeros,
    Ones,
}

/// Every trainable tensor under its nanoGPT state_dict name, in registration order, with a
/// gradient buffer of the same shape that training reuses step after step.
#[derive(Clone, Debug, Default)]
pub struct Params {
    pub names: Vec<String>,
    pub values: Vec<ArrayD<f32>>,
    pub grads: Vec<ArrayD<f32>>,
}

impl Params {
    /// Registers a parameter drawn from `init`, returning its index.
    pub(crate) fn add(&mut self, name: String, shape: &[usize], init: Init, rng: &mut Rng) -> usize {
        let value = match init {
            Init::Normal(std) => ArrayD::from_shape_simple_fn(IxDyn(shape), || rng.normal() * std),
            Init::Zeros => ArrayD::zeros(IxDyn(shape)),
            Init::Ones => ArrayD::ones(IxDyn(shape)),
        };
        self.names.push(name);
        self.grads.push(ArrayD::zeros(value.raw_dim()));
        self.values.push(value);
        self.values.len() - 1
    }

    /// The index of the parameter called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The parameter called `name`.
    pub fn get(&self, name: &str) -> Option<&ArrayD<f32>> {
        self.index(name).map(|i| &self.values[i])
    }

    /// Replaces the value of `name`, which must exist and keep its shape.
    pub fn set(&mut self, name: &str, value: ArrayD<f32>) -> Result<()> {
        let i = self.index(name).ok_or_else(|| Error::Format(format!("the model has no parameter {name}")))?;
        if value.shape() != self.values[i].shape() {
            return Err(Error::Format(format!(
                "{name} has shape {:?} but the model expects {:?}",
                value.shape(),
                self.values[i].shape()
            )));
        }
        self.values[i] = value.as_standard_layout().into_owned();
        Ok(())
    }

    /// Sets every gradient to zero, keeping the buffers.
    pub fn zero_grads(&mut self) {
        self.grads.iter_mut().for_each(|g| g.fill(0.0));
    }

    /// The number of scalars across all parameters.
    pub fn count(&self) -> usize {
        self.values.iter().map(|v| v.len()).sum()
    }
}
