//! What the Transformers export and import share across architectures: activation names, zero
//! biases for a run without them, and the import's error wording.

use crate::error::{Error, Result};
use crate::ops::Activation;
use crate::params::Params;
use crate::words::files;
use ndarray::Axis;
use serde_json::Value;

/// An import error, in the words every Transformers import uses.
pub(super) fn bad(why: impl std::fmt::Display) -> Error {
    Error::Format(files::transformers(why.to_string()))
}

/// A whole number from a `config.json`.
pub(super) fn count(config: &Value, key: &str) -> Result<usize> {
    config[key].as_u64().map(|v| v as usize).ok_or_else(|| bad(format!("has no {key} in config.json")))
}

/// Transformers' name for `activation`: "gelu_new" is GPT-2's own tanh approximation.
pub(super) fn activation_name(activation: Activation) -> &'static str {
    match activation {
        Activation::Gelu => "gelu",
        Activation::GeluTanh => "gelu_new",
        Activation::Relu => "relu",
    }
}

/// Ours of Transformers' activation names (both its spellings of GELU's tanh form).
pub(super) fn activation(name: &Value) -> Result<Activation> {
    let name = name.as_str().map(|n| n.replace("gelu_pytorch_tanh", "gelu_new"));
    let known = [Activation::Gelu, Activation::GeluTanh, Activation::Relu];
    known.into_iter().find(|&a| name.as_deref() == Some(activation_name(a))).ok_or_else(|| {
        bad(format!("uses the activation {name:?}; the playground has \"gelu\", \"gelu_new\" (tanh) and \"relu\""))
    })
}

/// The shape and bytes of a bias the run has none of: zeros as long as its weight's output side.
pub(super) fn zero_bias(params: &Params, bias: &str) -> (Vec<usize>, Vec<u8>) {
    let weight = params.get(&bias.replace(".bias", ".weight")).expect("every bias has its weight");
    let n = weight.len_of(Axis(0));
    (vec![n], vec![0; 4 * n])
}
