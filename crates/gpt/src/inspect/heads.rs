//! Heads over time: every head's induction, previous-token and entropy scores at each evaluation,
//! and the step where an induction head formed.

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
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let run = look.run;
    let scores = run.history().records::<HeadScores>();
    value(Heads { n_head: run.model().config().n_head, scores, onset: run.induction_onset() })
}
