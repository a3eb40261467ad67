//! Named parameter tensors, their gradients, and nanoGPT's initialisation.

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::words::{files, runs::bug};
use ndarray::{ArrayD, ArrayViewMutD, IxDyn};

/// How a parameter starts.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Init {
    Normal(f32),
    Zeros,
    Ones,
}

/// Every trainable tensor under its nanoGPT state_dict name, in registration order.
///
/// Gradients (and the weights a replica receives) travel as one flat `f32` buffer holding every
/// parameter in this order, each in standard layout: one allocation, and one transfer between
/// workers.
#[derive(Clone, Debug, Default)]
pub struct Params {
    pub names: Vec<String>,
    pub values: Vec<ArrayD<f32>>,
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
        let i = self.index(name).ok_or_else(|| Error::Format(files::no_parameter(name)))?;
        if value.shape() != self.values[i].shape() {
            return Err(Error::Format(files::parameter_shape(
                name,
                format!("{:?}", value.shape()),
                format!("{:?}", self.values[i].shape()),
            )));
        }
        self.values[i] = value.as_standard_layout().into_owned();
        Ok(())
    }

    /// The number of scalars across all parameters: the length of a flat buffer.
    pub fn count(&self) -> usize {
        self.values.iter().map(|v| v.len()).sum()
    }

    /// Each parameter's part of the flat buffer `flat`, shaped like the parameter.
    pub fn views_mut<'a>(&self, mut flat: &'a mut [f32]) -> Vec<ArrayViewMutD<'a, f32>> {
        assert_eq!(flat.len(), self.count(), "a flat buffer holds every parameter");
        self.values
            .iter()
            .map(|v| {
                let (part, rest) = std::mem::take(&mut flat).split_at_mut(v.len());
                flat = rest;
                ArrayViewMutD::from_shape(v.raw_dim(), part).expect("sized to the parameter")
            })
            .collect()
    }

    /// Each parameter's values with its offset in a flat buffer, in order: for copying them out
    /// piece by piece, with no flat copy in between.
    pub fn flat_parts(&self) -> impl Iterator<Item = (usize, &[f32])> {
        let offsets = self.values.iter().scan(0, |at, v| Some(std::mem::replace(at, *at + v.len())));
        offsets.zip(self.values.iter().map(|v| v.as_slice().expect("parameters are kept in standard layout")))
    }

    /// Sets every parameter piece by piece: `read(offset, part)` fills each from a flat buffer of
    /// `len` values, which must be [`Params::count`].
    pub fn read_flat(&mut self, len: usize, mut read: impl FnMut(usize, &mut [f32])) -> Result<()> {
        if len != self.count() {
            return Err(Error::Format(bug(format!("expected {} weights, got {len}", self.count()))));
        }
        let mut at = 0;
        for v in &mut self.values {
            let part = v.as_slice_mut().expect("parameters are kept in standard layout");
            read(at, part);
            at += part.len();
        }
        Ok(())
    }
}
