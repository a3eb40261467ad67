//! The circuit view: the circuit recorded at evaluations while the model learns (in the history,
//! so an open view costs training nothing), and, when asked, every edge scored three ways now.

use super::find::Circuits;
use super::EdgeGraph;
use crate::error::Result;
use crate::inspect::look::{value, Look};
use crate::inspect::records::CircuitPoint;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct CircuitView {
    pub graph: EdgeGraph,
    /// The circuit at each step it was recorded.
    pub timeline: Vec<CircuitPoint>,
    /// The first of those steps at which it had formed.
    pub formed: Option<usize>,
    /// Every edge scored now, when the request asks to find it.
    pub found: Option<Circuits>,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let (run, q) = (look.run, &look.questions);
    let found = if q.circuit.find { Some(run.circuits(&q.circuit, (&q.clean, &q.corrupted))?) } else { None };
    value(CircuitView {
        graph: EdgeGraph::of(run.model()),
        timeline: run.history().records::<CircuitPoint>(),
        formed: run.circuit_formed(),
        found,
    })
}
