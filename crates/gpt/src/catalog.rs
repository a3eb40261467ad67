//! Everything a page or a CLI offers to choose from, in one value: the presets, the tasks and
//! the optimisers, each with the settings it describes, the version, and every message the core
//! can say (for a page's catalogs to word).

use crate::data::{tasks, TaskInfo};
use crate::optim::{optimizers, OptimizerInfo};
use crate::presets::{presets, Preset};
use crate::words::{self, Template};
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
    /// Every message the core can say, with its English: each language's catalog words them.
    pub words: Vec<Template>,
}

/// The catalog of this build.
pub fn catalog() -> Catalog {
    let (version, words) = (env!("CARGO_PKG_VERSION"), words::all());
    Catalog { version, presets: presets(), tasks: tasks(), optimizers: optimizers(), words }
}
