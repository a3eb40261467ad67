//! Everything a page or a CLI offers to choose from, in one value: the presets, the tasks and
//! the optimisers, each with the settings it describes, and the version.

use crate::data::{tasks, TaskInfo};
use crate::optim::{optimizers, OptimizerInfo};
use crate::presets::{presets, Preset};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Catalog {
    pub version: &'static str,
    /// The named starting points, in the order the page lists them.
    pub presets: Vec<Preset>,
    /// Every task, as the Corpus menu lists them.
    pub tasks: Vec<TaskInfo>,
    /// Every optimiser, as the Optimizer menu lists them.
    pub optimizers: Vec<OptimizerInfo>,
}

/// The catalog of this build.
pub fn catalog() -> Catalog {
    Catalog { version: env!("CARGO_PKG_VERSION"), presets: presets(), tasks: tasks(), optimizers: optimizers() }
}
