//! Walk through the model: one token followed (`request.rs` asks what, `sequence.rs` fills in the
//! defaults) through the run's own GPT, every stage of the forward pass (`forward.rs`, the opened block in `block.rs`) and of one
//! training step's backward pass and update (`backward.rs`), each a figure (`stage.rs`), with its
//! real numbers; a view inside the model like the others (`view.rs`). Each stage is one line of nanoGPT's `model.py` with
//! its shape, and is named by TransformerLens's hook point, so an export opened there shows the
//! same numbers (`python/check_walk.py` checks them against PyTorch). It reads the run and
//! computes on copies: training goes on bit for bit as if the walk had never been opened.

mod backward;
mod block;
mod forward;
mod names;
mod request;
mod sequence;
mod stage;
mod view;

pub use backward::{Backward, OptimizerRate, ParamStep};
pub use forward::Draw;
pub use request::WalkRequest;
pub use sequence::Followed;
pub use stage::{Note, Stage};
pub use view::view;

use crate::error::Result;
use crate::Run;
use serde::Serialize;

/// The walk: the sequence followed, the forward pass stage by stage, the draw at the end, and one
/// training step on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Walk {
    /// The run's step the weights are at.
    pub step: usize,
    pub followed: Followed,
    pub n_layer: usize,
    pub n_head: usize,
    pub n_embd: usize,
    pub forward: Vec<Stage>,
    /// The last stage: the probabilities at the sampling settings, and the token they draw.
    pub draw: Draw,
    pub backward: Backward,
}

impl Run {
    /// The walk through the model that `request` asks for, at the run's current weights.
    pub fn walk(&self, request: &WalkRequest) -> Result<Walk> {
        let followed = self.follow(request)?;
        let ids: Vec<usize> = followed.ids.iter().map(|&i| i as usize).collect();
        let hooked = self.model().hooked(&ids, Some((followed.position, followed.target.id as usize)))?;
        let cfg = self.model().config();
        let forward = forward::stages(self, &followed, &hooked);
        let draw = forward::draw(self, &followed, &hooked, request)?;
        let backward = backward::step(self, &followed, &hooked)?;
        Ok(Walk {
            step: self.step_count(),
            followed,
            n_layer: cfg.n_layer,
            n_head: cfg.n_head,
            n_embd: cfg.n_embd,
            forward,
            draw,
            backward,
        })
    }
}

#[cfg(test)]
mod tests;
