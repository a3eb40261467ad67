//! What the views look at: a run, a probe's tokens and the sampling prompt, and the probe's
//! trace, computed once for the views that read it.

use crate::error::{Error, Result};
use crate::model::Trace;
use crate::run::Run;
use crate::sample::most_likely;
use crate::NextToken;
use std::cell::OnceCell;

/// Guesses listed per token and per layer of the lens.
const GUESSES: usize = 5;

pub struct Look<'a> {
    pub run: &'a Run,
    /// The probe's ids: the text typed, or the first block of held-out text.
    pub probe: Vec<usize>,
    /// The sampling prompt.
    pub prompt: &'a str,
    trace: OnceCell<Trace>,
}

impl<'a> Look<'a> {
    /// A look at `run` through `probe` (empty: the held-out text) and `prompt`.
    pub fn new(run: &'a Run, probe: &str, prompt: &'a str) -> Result<Look<'a>> {
        let probe = if probe.is_empty() { run.held_out() } else { window(run, probe)? };
        if probe.is_empty() {
            return Err(Error::Data("type a probe text: with no training text there is no held-out one".into()));
        }
        Ok(Look { run, probe, prompt, trace: OnceCell::new() })
    }

    /// Everything a forward pass over the probe leaves behind.
    pub fn trace(&self) -> Result<&Trace> {
        if let Some(trace) = self.trace.get() {
            return Ok(trace);
        }
        let trace = self.run.model().trace(&self.probe)?;
        Ok(self.trace.get_or_init(|| trace))
    }

    /// A token's text.
    pub fn text(&self, id: usize) -> String {
        self.run.tokenizer().token_text(id as u32)
    }

    /// The likeliest tokens of the distribution `probs`, most likely first.
    pub fn guesses(&self, probs: &[f32]) -> Vec<NextToken> {
        most_likely(probs, GUESSES)
            .into_iter()
            .map(|(id, prob)| NextToken { token: self.text(id as usize), prob })
            .collect()
    }
}

/// The last `block_size` tokens of `text`, encoded.
pub fn window(run: &Run, text: &str) -> Result<Vec<usize>> {
    let ids = run.tokenizer().encode(text)?;
    let block = run.model().config().block_size;
    Ok(ids[ids.len().saturating_sub(block)..].iter().map(|&i| i as usize).collect())
}

/// The L2 norm of each row of `c` values.
pub fn norms(rows: &[f32], c: usize) -> impl Iterator<Item = f32> + '_ {
    rows.chunks_exact(c).map(|r| r.iter().map(|x| x * x).sum::<f32>().sqrt())
}

/// `softmax(logits / temperature)`, in place.
pub fn softmax_at(logits: &mut [f32], temperature: f32) {
    logits.iter_mut().for_each(|l| *l /= temperature);
    crate::ops::softmax_in_place(logits);
}

/// A view's data as the page reads it.
pub fn value(data: impl serde::Serialize) -> Result<serde_json::Value> {
    serde_json::to_value(data).map_err(|e| Error::Data(format!("a view's data could not be written: {e}")))
}
