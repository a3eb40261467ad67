//! Heads over time: every head's induction, previous-token and entropy scores at each evaluation,
//! the step where an induction head formed, and each head's refined LLC at the live LLC's records
//! (`llc_heads.rs`).

use super::llc_heads::HeadsLlcPoint;
use super::look::{value, Look};
use super::scores::HeadScores;
use crate::error::Result;
use crate::run::Onset;
use serde::Serialize;

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Heads {
    pub n_head: usize,
    pub scores: Vec<HeadScores>,
    pub onset: Option<Onset>,
    /// Each head's LLC at the records estimated so far, and how many records wait for it.
    pub llc: Vec<HeadsLlcPoint>,
    pub llc_pending: usize,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let run = look.run;
    let scores = run.history().records::<HeadScores>();
    let (llc, llc_pending) = (run.history().records::<HeadsLlcPoint>(), run.heads_llc_pending().len());
    value(Heads { n_head: run.model().config().n_head, scores, onset: run.induction_onset(), llc, llc_pending })
}
