//! Models built, not trained: weights set by hand for one of the tasks, so that their circuit is
//! known by construction (as Tracr compiles a program, or InterpBench trains a model to a given
//! circuit), and a circuit method can be scored against it. Each is one file and a line in
//! [`BUILT`], with its circuit under each corruption named by the edge graph's own edge names.

mod backup;
mod induction;
mod reverse;
mod spec;
mod weights;

use crate::checkpoint::KnownCircuit;
use crate::config::GPTConfig;
use crate::error::{Error, FieldError, Result};
use crate::params::Params;
use crate::settings::Settings;
use crate::words::settings as words;

pub use spec::{Built, Truth};

/// Every built model.
pub const BUILT: &[Built] = &[induction::INDUCTION, backup::BACKUP_HEAD, reverse::REVERSE];

/// The built model called `name`.
pub fn built(name: &str) -> Option<&'static Built> {
    BUILT.iter().find(|b| b.name == name)
}

/// Sets `params`, a new model of `settings`, to the weights of the model they name as built (see
/// [`Settings::built`]), refusing a shape or task of another's; the circuits it was built with.
pub fn set_weights(settings: &Settings, params: &mut Params) -> Result<Vec<KnownCircuit>> {
    let Some(name) = &settings.built else { return Ok(vec![]) };
    let names = || BUILT.iter().map(|b| b.name).collect::<Vec<_>>().join(", ");
    let invalid = |message| Error::Invalid(FieldError::new("built", message));
    let built = built(name).ok_or_else(|| invalid(words::unknown_built(name.as_str(), names())))?;
    let own = built.settings();
    // The vocabulary is the task's, whatever the settings say of it.
    let model = GPTConfig { vocab_size: own.model.vocab_size, ..settings.model.clone() };
    if (&own.model, &own.task) != (&model, &settings.task) {
        return Err(invalid(words::built_fixed(name.as_str())));
    }
    (built.weights)(params)?;
    let known =
        |t: &Truth| KnownCircuit { corruption: t.corruption, edges: t.edges.iter().map(|e| e.to_string()).collect() };
    Ok(built.truth.iter().map(known).collect())
}
