//! What a worker is handed: a training step's shards, an evaluation's batches, exact patching's
//! edges or the learning coefficient's chains, as one plan.

use super::edge_plan::EdgePlan;
use super::eval_plan::EvalPlan;
use super::llc_plan::LlcPlan;
use super::step_plan::StepPlan;
use crate::error::{Error, Result};
use crate::words::runs::bug;
use serde::{Deserialize, Serialize};

/// What a worker is handed: a training step's shards, an evaluation's batches, the edges to patch
/// exactly, or the chains of the learning coefficient. Any way it computes a contiguous range of
/// units ([`Work::units`]) into partial sums the run adds up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Work {
    Step(StepPlan),
    Evaluation(EvalPlan),
    Edges(EdgePlan),
    Llc(LlcPlan),
}

impl Work {
    /// The work as JSON, as it travels to helpers.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plans are plain data")
    }

    /// Work from [`Work::to_json`]'s text, as the run sent it.
    pub fn from_json(text: &str) -> Result<Work> {
        serde_json::from_str(text).map_err(|e| Error::Data(bug(format!("a plan from another worker: {e}"))))
    }

    /// How many units of work it splits into: shards of a step, batches of an evaluation, edges,
    /// chains.
    pub fn units(&self) -> usize {
        match self {
            Work::Step(plan) => plan.shards,
            Work::Evaluation(plan) => plan.batches,
            Work::Edges(plan) => plan.edges,
            Work::Llc(plan) => plan.units(),
        }
    }
}
