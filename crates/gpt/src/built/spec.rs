//! What a model built by hand is: its name, its settings, the weights it sets and the circuit it
//! was built with under each corruption.

use crate::error::Result;
use crate::params::Params;
use crate::settings::Settings;
use crate::work::edge_plan::Corruption;

/// A built model's circuit under one corruption: the edges that carry the answer's change, and
/// among them the groups that back each other up (any one of a group carries it alone).
pub struct Truth {
    pub corruption: Corruption,
    pub edges: &'static [&'static str],
    pub backups: &'static [&'static [&'static str]],
}

/// A model built by hand.
pub struct Built {
    pub name: &'static str,
    /// Its name among the page's presets.
    pub preset: &'static str,
    pub description: &'static str,
    pub(super) settings: fn() -> Settings,
    /// Sets every weight of a model of its settings.
    pub(super) weights: fn(&mut Params) -> Result<()>,
    pub truth: &'static [Truth],
}

impl Built {
    /// Its settings: its shape, its task, a recipe for training on, and its name.
    pub fn settings(&self) -> Settings {
        Settings { built: Some(self.name.into()), ..(self.settings)() }
    }
}
