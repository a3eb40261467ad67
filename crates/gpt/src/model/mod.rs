//! The GPT, as nanoGPT's `model.py`, by layer: `gpt.rs` (the model and its forward pass),
//! `block.rs` (a pre-norm block), `attention.rs`, `mlp.rs` and `layers.rs` (linear, norm,
//! dropout); `extras.rs` (what a pass does besides computing: dropout, edits (`edits.rs`), hooks
//! that name its values by TransformerLens's names) and `trace.rs` (a pass kept for looking inside,
//! and the logit lens); `hooked.rs` (one sequence's training step seen from inside, for the walk); `hook_point.rs`
//! (the activations a sparse autoencoder reads, and a pass with them replaced); `resume.rs` (a pass resumed from a kept
//! stream, for knocking parts out in turn); `rewire.rs` and `rewired.rs` (a pass whose parts read
//! what others wrote differently), `edge_graph.rs` and `edge_patching.rs` (its parts' edges, as
//! circuit tools see them, each patched exactly); `frozen.rs` (the model frozen at a prompt, as
//! circuit tracing freezes it, and readers back-propagated through it); `frozen_part.rs` (a pass
//! that moves only some weights, a refined learning coefficient's, started where they start);
//! `kv_cache.rs` and `decode.rs`, the same model one position at a time for generation.

mod attention;
mod block;
mod decode;
mod edge_graph;
mod edge_patching;
mod edits;
mod extras;
mod frozen;
mod frozen_heads;
mod frozen_part;
mod gpt;
mod hook_point;
mod hooked;
mod kv_cache;
mod layers;
mod mlp;
mod resume;
mod rewire;
mod rewired;
mod trace;
mod trainable;
mod weight_parts;

pub use edge_graph::{Edge, EdgeGraph, Writer};
pub use edge_patching::{metric_rows, plan_scores, Runs};
pub use edits::{head_columns, Edit, Site};
pub use extras::Trace;
pub use frozen::{FrozenPass, FrozenRead};
pub use frozen_heads::HeadSink;
pub use gpt::{uniform_loss, GPT};
pub use hook_point::HookPoint;
pub use hooked::{HookValue, Hooked};
pub use kv_cache::KvCache;
pub use rewire::{readers, HeadInput, Reader, Rewire};
pub use rewired::ReaderGrads;
pub use weight_parts::WeightPart;
