//! The messages that carry shared work between a run (the leader) and its helpers: an [`Order`]
//! says what a helper computes and a [`Reply`] brings the results back. Each travels as a small
//! JSON header and one flat buffer of floats (gradients, an optimiser's pieces, the whole state
//! once), which the page moves between Web Workers without a copy.

use crate::config::TrainConfig;
use crate::error::{Error, Result};
use crate::words::runs::bug;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// What a helper computes, for job `job`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Order {
    /// The job it belongs to: a reply to a job since given up is dropped.
    pub job: u64,
    /// Which helper computes it (1 and up: the run itself is 0); its reply says so again.
    pub helper: usize,
    pub assignment: Assignment,
}

/// The work an order asks for. (Externally tagged: a plan travels as raw JSON, which serde's
/// internal tags would read into another form first.)
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assignment {
    /// Units `first..end` of the job's plan (a step's shards, an evaluation's batches), on the
    /// run's weights after `step` steps. A helper's first order of a job brings the plan; later
    /// ones use it. `sync` brings the run's whole state (weights, then the optimiser's), in the
    /// buffer, to a helper that may not hold it.
    Units { first: usize, end: usize, plan: Option<Box<RawValue>>, step: usize, sync: Option<SyncState> },
    /// The step's partial sums outside the helper's own units, or its root (all of them summed),
    /// their gradients one after another in the buffer: it adds them to its own as the run does,
    /// begins the same update, and computes its share (of `workers`) of the optimiser's pieces.
    Sum { partials: Vec<PartialSum>, workers: usize },
    /// The optimiser's pieces the helper did not compute, by number, their values one after
    /// another in the buffer: with them it finishes the step.
    Pieces { pieces: Vec<usize> },
}

/// What a helper needs, beside the weights and the optimiser's tensors, to step as the run does.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SyncState {
    pub train: TrainConfig,
    pub dropout: f32,
    /// The loss of a uniform guess, past which a step counts as diverged.
    pub uniform_loss: f32,
    pub optimizer_steps: u64,
    /// The optimiser's tensors in the buffer, by name and shape, after the weights.
    pub tensors: Vec<(String, Vec<usize>)>,
}

/// What a helper sends back for job `job`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    pub job: u64,
    pub helper: usize,
    pub results: Results,
}

/// A reply's results.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Results {
    /// Partial sums (see `partial.rs`), their gradients one after another in the buffer (none
    /// for an evaluation's batches).
    Partials { partials: Vec<PartialSum> },
    /// The helper's share of the optimiser's pieces, by number, their values one after another
    /// in the buffer.
    Pieces { pieces: Vec<usize> },
    /// The helper has finished the step (or refused it, as the run does a diverged one). The run
    /// does not wait for this.
    Stepped,
}

/// A partial sum as it travels: its units, loss and rows exactly right (its gradients apart).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct PartialSum {
    pub first: usize,
    pub count: usize,
    pub loss: f64,
    pub exact: usize,
}

/// What goes with an order's header in its buffer, for the run to copy in.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    None,
    /// Every weight, flat, then the optimiser's tensors.
    Sync,
    /// These partial sums of the step in progress (by their place among the job's), one after
    /// another.
    Partials(Vec<usize>),
    /// The step's summed gradients, before clipping.
    Root,
    /// These pieces of the update in progress, one after another.
    Pieces(Vec<usize>),
}

/// An order as the run hands it out: the header to send, and what its buffer holds.
#[derive(Clone, Debug)]
pub struct Outgoing {
    /// The helper it goes to (1 and up).
    pub to: usize,
    pub header: String,
    pub data: Data,
}

/// Reads a message's JSON header, naming what it should have been.
pub(crate) fn read<'a, T: Deserialize<'a>>(header: &'a str, what: &str) -> Result<T> {
    serde_json::from_str(header)
        .map_err(|e| Error::Data(bug(format!("{what} from another worker cannot be read: {e}"))))
}

/// A message's header as JSON.
pub(crate) fn write<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).expect("orders and replies are plain data")
}
