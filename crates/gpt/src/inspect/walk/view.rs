//! The walk as a view inside the model, so the page asks for it as for any view.

use crate::error::Result;
use crate::inspect::look::{value, Look};

/// The walk `questions.walk` asks for.
pub fn view(look: &Look) -> Result<serde_json::Value> {
    value(look.run.walk(&look.questions.walk)?)
}
