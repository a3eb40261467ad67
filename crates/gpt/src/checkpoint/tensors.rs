//! The tensors of a checkpoint: f32 arrays written as little-endian bytes and read back checked
//! (type and shape), parameters and optimiser state under a name's prefix.

use crate::error::{Error, Result};
use crate::optim::Optimizer;
use crate::params::Params;
use crate::words::files;
use ndarray::{ArrayD, IxDyn};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;

/// `values` as little-endian f32 bytes, in the order given (an array's logical order).
pub(crate) fn le_bytes<'a>(values: impl IntoIterator<Item = &'a f32>) -> Vec<u8> {
    values.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A tensor to write: name, shape and little-endian f32 bytes.
pub(crate) type Tensor = (String, Vec<usize>, Vec<u8>);

/// One safetensors file of f32 `tensors` and string `metadata` (ours, and the Transformers export's).
pub(crate) fn serialize(tensors: &[Tensor], metadata: HashMap<String, String>) -> Result<Vec<u8>> {
    let views = tensors
        .iter()
        .map(|(name, shape, data)| {
            Ok((name.as_str(), safetensors::tensor::TensorView::new(Dtype::F32, shape.clone(), data)?))
        })
        .collect::<std::result::Result<Vec<_>, safetensors::SafeTensorError>>()
        .and_then(|views| safetensors::serialize(views, Some(metadata)));
    views.map_err(|e| Error::Format(files::unwritable(e.to_string())))
}

pub(super) fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

/// Tensor `name` of `file`, which must be float32 of shape `want`.
pub(super) fn read_tensor(file: &SafeTensors, name: &str, want: &[usize]) -> Result<ArrayD<f32>> {
    let bad = Error::Format;
    let t = file.tensor(name).map_err(|_| bad(files::no_tensor(name)))?;
    if t.dtype() != Dtype::F32 {
        return Err(bad(files::tensor_type(name, format!("{:?}", t.dtype()))));
    }
    if t.shape() != want {
        return Err(bad(files::tensor_shape(name, format!("{:?}", t.shape()), format!("{want:?}"))));
    }
    let values = t.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Ok(ArrayD::from_shape_vec(IxDyn(want), values).expect("length checked by safetensors"))
}

/// Every parameter of `params` from `file`, each under `prefix` and its name.
pub(super) fn read_params(file: &SafeTensors, prefix: &str, params: &mut Params) -> Result<()> {
    for (name, value) in params.names.iter().zip(params.values.iter_mut()) {
        *value = read_tensor(file, &format!("{prefix}{name}"), value.shape())?;
    }
    Ok(())
}

/// Every parameter of `params`, each under `prefix` and its name.
pub(super) fn param_tensors(params: &Params, prefix: &str) -> Vec<Tensor> {
    named(prefix, params.names.iter().map(String::as_str).zip(&params.values))
}

/// The optimiser's state tensors `optimizer` keeps, each under `prefix` and its own name.
pub(super) fn optimizer_tensors(optimizer: &dyn Optimizer, prefix: &str) -> Vec<Tensor> {
    let state = optimizer.state();
    named(prefix, state.iter().map(|(name, value)| (name.as_str(), *value)))
}

fn named<'a>(prefix: &str, arrays: impl Iterator<Item = (&'a str, &'a ArrayD<f32>)>) -> Vec<Tensor> {
    arrays.map(|(name, value)| (format!("{prefix}{name}"), value.shape().to_vec(), le_bytes(value))).collect()
}

/// The state `optimizer` keeps, read from `file` under `prefix` (each tensor it needs must be there).
pub(super) fn restore_optimizer(file: &SafeTensors, prefix: &str, optimizer: &mut dyn Optimizer) -> Result<()> {
    optimizer.restore(&|name: &str, shape: &[usize]| {
        let key = format!("{prefix}{name}");
        file.tensor(&key).ok().map(|_| read_tensor(file, &key, shape)).transpose()
    })
}
