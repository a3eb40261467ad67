//! A run's training: its trainer's jobs (steps and evaluations, shared with helpers) on the run's
//! text or task, and after each evaluation what watches the run measures the model. The views
//! inside the model (`inspect/`) watch every run the page and the CLI make; the
//! run knows them only through [`Watch`].

use super::Run;
use super::RunJob;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::llc::Llc;
use crate::train::{Evaluation, Outcome, StepStats, TrainReport};
use crate::words::runs;
use crate::work::edge_plan::EdgePlan;
use crate::work::llc_plan::LlcPlan;

/// What watches a run as it trains: measures of the model taken at each evaluation, kept in the
/// run's history under their own names ([`crate::train::Record`]), and what they keep for this
/// session only.
pub trait Watch: Default + Sized {
    /// The names of the records it keeps, in the order a checkpoint writes them.
    const RECORDS: &'static [&'static str];
    /// Measures the model once an evaluation has been recorded.
    fn evaluated(run: &mut Run<Self>) -> Result<()>;
    /// When an induction head first formed, if one did (the loss chart marks it).
    fn induction_onset(run: &Run<Self>) -> Option<super::Onset>;
    /// The step a circuit behind the answers formed, if one did (the loss chart marks it too).
    fn circuit_formed(_run: &Run<Self>) -> Option<usize> {
        None
    }
    /// Exact edge patching's plan for what the circuit view is asked (`questions`): none where
    /// the model is too large to patch every edge.
    fn circuit_plan(_run: &Run<Self>, _questions: &serde_json::Value) -> Result<Option<EdgePlan>> {
        Err(Error::Config(runs::no_circuit_view()))
    }
    /// The chains of every head's LLC at the earliest live record still waiting for it, with
    /// that record's step: none when none waits (or nothing keeps the records).
    fn heads_llc_plan(_run: &Run<Self>) -> Result<Option<(usize, LlcPlan)>> {
        Ok(None)
    }
    /// Keeps each head's LLC at the live record of `step`: how many records still wait.
    fn heads_llc_recorded(_run: &mut Run<Self>, _step: usize, _estimates: Vec<Llc>) -> Result<usize> {
        Ok(0)
    }
    /// The chains of the live LLC record due at this evaluation, if one is: the run shares them
    /// with its helpers, then hands their estimate to [`Watch::live_llc_recorded`].
    fn live_llc_plan(_run: &Run<Self>) -> Result<Option<LlcPlan>> {
        Ok(None)
    }
    /// Keeps the live LLC record the chains of [`Watch::live_llc_plan`] estimated.
    fn live_llc_recorded(_run: &mut Run<Self>, _llc: Llc) -> Result<()> {
        Ok(())
    }
}

/// A run nothing watches: no records, no marks.
impl Watch for () {
    const RECORDS: &'static [&'static str] = &[];

    fn evaluated(_: &mut Run<()>) -> Result<()> {
        Ok(())
    }

    fn induction_onset(_: &Run<()>) -> Option<super::Onset> {
        None
    }
}

impl<W: Watch> Run<W> {
    pub(crate) fn data(&self) -> Result<&Dataset> {
        self.data.as_ref().ok_or_else(no_text)
    }

    /// A whole job on the run's threads, with no helpers.
    fn run_alone(&mut self, kind: RunJob, now_ms: &dyn Fn() -> f64) -> Result<Outcome> {
        self.begin(kind, &[], now_ms())?;
        loop {
            if let Some(outcome) = self.advance(now_ms)?.outcome {
                return Ok(outcome);
            }
        }
    }

    /// One whole step on the run's threads, timed with `now_ms`.
    pub fn step(&mut self, now_ms: &dyn Fn() -> f64) -> Result<StepStats> {
        self.run_alone(RunJob::Step, now_ms)?.step()
    }

    /// A whole evaluation on the run's threads, measured by what watches it.
    pub fn evaluate(&mut self) -> Result<Evaluation> {
        self.evaluate_timed(&|| 0.0)
    }

    /// [`Run::evaluate`], its records timed with `now_ms` (see [`Run::records_s`]).
    pub fn evaluate_timed(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Evaluation> {
        self.run_alone(RunJob::Evaluation, now_ms)?.evaluation()
    }

    /// Up to `n` steps (at least one), never past `max_iters`, timed with `now_ms` (a clock in
    /// milliseconds: `performance.now` in a page, a monotonic clock natively). Divergence ends
    /// the call early, with the reason in [`TrainReport::stopped`].
    pub fn train(&mut self, n: usize, now_ms: &dyn Fn() -> f64) -> Result<TrainReport> {
        let data = self.data.as_ref().ok_or_else(no_text)?;
        Ok(self.trainer.train(n, data, now_ms))
    }

    /// What the steps since the last report did, with this session's speed and time left.
    pub fn take_report(&mut self) -> TrainReport {
        self.trainer.take_report()
    }

    /// Tokens per second over all the training timed in this session.
    pub fn session_tokens_per_s(&self) -> f64 {
        self.trainer.session_tokens_per_s()
    }

    /// Seconds the views' records took at evaluations in this session: what the instruments cost.
    pub fn records_s(&self) -> f64 {
        self.trainer.timing.records_ms / 1e3
    }

    /// Whether the schedule calls for an evaluation now: every `eval_interval` steps, at the
    /// start and at the end.
    pub fn eval_due(&self) -> bool {
        self.trainer.eval_due()
    }

    /// Steps to train before the next evaluation is due (or the run ends).
    pub fn steps_to_next_eval(&self) -> usize {
        self.trainer.steps_to_next_eval()
    }

    /// How many threads compute the run's own share of each job (natively; 1 in wasm).
    pub fn set_threads(&mut self, threads: usize) {
        self.trainer.set_threads(threads);
    }

    /// How many compute each step: the run's threads and its helpers.
    pub fn workers(&self) -> usize {
        self.trainer.workers()
    }

    /// Changes how often and over how many batches the run evaluates; `None` keeps a setting.
    pub fn set_evaluation(&mut self, interval: Option<usize>, iters: Option<usize>) {
        self.trainer.set_evaluation(interval, iters);
    }

    /// The mean cross-entropy over every non-overlapping `block_size` window of `tokens` (each
    /// predicting its next `block_size` tokens), and how many windows there were. Unlike
    /// [`Run::evaluate`], it draws nothing at random.
    pub fn text_loss(&self, tokens: &[u32]) -> Result<(f32, usize)> {
        windows_loss(self.model(), tokens)
    }
}

pub(super) fn no_text() -> Error {
    Error::Data(runs::no_text())
}

/// Windows per forward pass; bounds memory while keeping the matrix products large.
const WINDOWS_PER_BATCH: usize = 16;

/// The mean loss over every window of `tokens`, and how many there were (see [`Run::text_loss`]).
fn windows_loss(model: &crate::GPT, tokens: &[u32]) -> Result<(f32, usize)> {
    let t = model.config().block_size;
    let windows = tokens.len().saturating_sub(1) / t;
    if windows == 0 {
        return Err(Error::Data(runs::text_under_window(tokens.len(), t + 1)));
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut total = 0.0f64;
    for first in (0..windows).step_by(WINDOWS_PER_BATCH) {
        let b = WINDOWS_PER_BATCH.min(windows - first);
        x.clear();
        y.clear();
        for w in first..first + b {
            x.extend(tokens[w * t..(w + 1) * t].iter().map(|&i| i as usize));
            y.extend(tokens[w * t + 1..(w + 1) * t + 1].iter().map(|&i| i as usize));
        }
        total += model.loss(&x, &y, b, t)? as f64 * b as f64;
    }
    Ok(((total / windows as f64) as f32, windows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GPTConfig, GPT};

    #[test]
    fn averages_every_window_in_batches() {
        let config = GPTConfig { vocab_size: 5, block_size: 3, n_layer: 1, n_head: 1, n_embd: 4, ..Default::default() };
        let model = GPT::new(config, 1).unwrap();
        let tokens: Vec<u32> = (0..100).map(|i| (i * 7 % 5) as u32).collect();
        let (loss, windows) = windows_loss(&model, &tokens).unwrap();
        assert_eq!(windows, 33);
        let one_by_one: f32 = (0..33)
            .map(|w| {
                let ids = |o: usize| (w * 3 + o..w * 3 + o + 3).map(|i| tokens[i] as usize).collect::<Vec<_>>();
                model.loss(&ids(0), &ids(1), 1, 3).unwrap()
            })
            .sum::<f32>()
            / 33.0;
        assert!((loss - one_by_one).abs() < 1e-5, "{loss} vs {one_by_one}");
        assert!(windows_loss(&model, &tokens[..3]).unwrap_err().to_string().contains("needs 4"));
    }
}
