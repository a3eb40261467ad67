//! The attention time-lapse: every head's attention on the held-out probe at each evaluation
//! (`snapshots.rs` keeps them). This view says which steps it holds; the snapshots themselves,
//! large, go to the page as one typed array when they change ([`crate::Run::timelapse`]).

use super::look::{value, Look};
use crate::error::Result;
use serde::Serialize;

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TimelapseSteps<'a> {
    pub steps: &'a [usize],
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    value(TimelapseSteps { steps: &look.run.timelapse().steps })
}
