//! Looking inside a model while it learns: the numbers behind the page's "Inside the model"
//! views. The model's own trace (`model/trace.rs`) gives the raw values; these turn them into
//! what the views show, and `run/inside.rs` gathers them for a run.

pub mod heads;
pub mod pca;
pub mod views;
