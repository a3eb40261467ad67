//! Models built, not trained: weights set by hand for one of the tasks, so that their circuit is
//! known by construction (as Tracr compiles a program, or InterpBench trains a model to a given
//! circuit), and a circuit method can be scored against it. Each is one file and a line in
//! [`BUILT`], with its circuit under each corruption named by the edge graph's own edge names.

mod induction;
mod reverse;
#[cfg(test)]
mod tests;
mod weights;

use crate::checkpoint::KnownCircuit;
use crate::config::Budget;
use crate::error::Result;
use crate::inspect::circuit::Corruption;
use crate::params::Params;
use crate::{Run, Settings};

/// A built model's circuit under one corruption: the edges that carry the answer's change.
pub struct Truth {
    pub corruption: Corruption,
    pub edges: &'static [&'static str],
}

/// A model built by hand.
pub struct Built {
    pub name: &'static str,
    pub description: &'static str,
    settings: fn() -> Settings,
    /// Sets every weight of a model of its settings.
    set: fn(&mut Params) -> Result<()>,
    pub truth: &'static [Truth],
}

/// Every built model.
pub const BUILT: &[Built] = &[induction::INDUCTION, reverse::REVERSE];

/// The built model called `name`.
pub fn built(name: &str) -> Option<&'static Built> {
    BUILT.iter().find(|b| b.name == name)
}

impl Built {
    /// The model, as a run at step 0 on its task, carrying its circuits (a checkpoint keeps them).
    pub fn run(&self) -> Result<Run> {
        let mut run = Run::create(&(self.settings)(), "", &Budget::UNLIMITED)?;
        (self.set)(run.trainer.model.params_mut())?;
        run.known = self
            .truth
            .iter()
            .map(|t| KnownCircuit { corruption: t.corruption, edges: t.edges.iter().map(|e| e.to_string()).collect() })
            .collect();
        Ok(run)
    }
}
