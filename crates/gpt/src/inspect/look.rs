//! What the views look at: a run, a probe's tokens, the sampling prompt and the questions the
//! testing views are asked, and the probe's trace, computed once for the views that read it.

use crate::error::{Error, Result};
use crate::model::Trace;
use crate::sample::most_likely;
use crate::words::{runs::bug, views};
use crate::NextToken;
use crate::Run;
use serde::Deserialize;
use std::cell::OnceCell;

/// Guesses listed per token and per layer of the lens.
const GUESSES: usize = 5;

/// What the views that test the model are asked: which part to knock out and how, and a clean
/// and a corrupted input to patch between.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default)]
pub struct Questions {
    /// The part the ablation view knocks out; none: the head whose loss costs the most.
    pub ablate: Option<crate::model::Site>,
    pub fill: super::records::Fill,
    /// Held-out problems the page lists, among which the ablation view finds flips.
    pub shown: usize,
    /// The clean and corrupted inputs of patching and attribution (a task's prompts, or texts);
    /// both empty: ones proposed from the run.
    pub clean: String,
    pub corrupted: String,
    /// What the walk through the model follows.
    pub walk: super::walk::WalkRequest,
    /// What the circuit view finds the circuit of.
    pub circuit: super::circuit::request::CircuitRequest,
    /// What the learning coefficient view estimates.
    pub llc: crate::run::LlcQuestion,
}

impl Default for Questions {
    fn default() -> Questions {
        let (clean, corrupted, walk, circuit) = (String::new(), String::new(), Default::default(), Default::default());
        let llc = Default::default();
        Questions { ablate: None, fill: Default::default(), shown: 8, clean, corrupted, walk, circuit, llc }
    }
}

pub struct Look<'a> {
    pub run: &'a Run,
    pub questions: Questions,
    /// The probe's ids: the text typed, or the first block of held-out text.
    pub probe: Vec<usize>,
    /// The sampling prompt.
    pub prompt: &'a str,
    trace: OnceCell<Trace>,
}

impl<'a> Look<'a> {
    /// A look at `run` through `probe` (empty: the held-out text) and `prompt`, asking `questions`.
    pub fn new(run: &'a Run, probe: &str, prompt: &'a str, questions: Questions) -> Result<Look<'a>> {
        let probe = if probe.is_empty() { run.held_out() } else { window(run, probe)? };
        Ok(Look { run, questions, probe, prompt, trace: OnceCell::new() })
    }

    /// Everything a forward pass over the probe leaves behind.
    pub fn trace(&self) -> Result<&Trace> {
        if let Some(trace) = self.trace.get() {
            return Ok(trace);
        }
        if self.probe.is_empty() {
            return Err(Error::Data(views::probe_text()));
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
            .map(|(id, prob)| NextToken { id, token: self.text(id as usize), prob })
            .collect()
    }
}

/// The last `block_size` tokens of `text`, encoded.
pub fn window(run: &Run, text: &str) -> Result<Vec<usize>> {
    let ids = run.tokenizer().encode(text)?;
    let block = run.model().config().block_size;
    Ok(ids[ids.len().saturating_sub(block)..].iter().map(|&i| i as usize).collect())
}

/// Each of `ids` as its token's text.
pub fn token_texts(run: &Run, ids: &[usize]) -> Vec<String> {
    ids.iter().map(|&i| run.tokenizer().token_text(i as u32)).collect()
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
    serde_json::to_value(data).map_err(|e| Error::Data(bug(format!("a view's data could not be written: {e}"))))
}
