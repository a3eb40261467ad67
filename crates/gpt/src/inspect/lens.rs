//! The logit lens (nostalgebraist 2020): the likeliest next tokens after the prompt's last token,
//! read off the residual stream after the embeddings (row 0) and after each layer, through the
//! final norm and the output projection; the last row is the model's own prediction.

use super::look::{softmax_at, value, window, Look};
use crate::error::Result;

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let ids = window(look.run, look.prompt)?;
    let ids = if ids.is_empty() { vec![0] } else { ids }; // as sampling starts an empty prompt
    let model = look.run.model();
    let trace = model.trace(&ids)?;
    let c = model.config().n_embd;
    let last = (ids.len() - 1) * c..ids.len() * c;
    let rows: Vec<_> = trace
        .residual
        .iter()
        .map(|stream| {
            let mut probs = model.lens(&stream[last.clone()]);
            softmax_at(&mut probs, 1.0);
            look.guesses(&probs)
        })
        .collect();
    value(rows)
}
