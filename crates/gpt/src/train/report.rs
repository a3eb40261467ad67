//! What training reports: tokens per second (in all and per worker) and the time left, timed
//! from the steps themselves, so the page and the CLI show the same numbers.

use super::history::StepStats;
use super::trainable::Trainable;
use super::trainer::Trainer;
use serde::Serialize;

/// What the steps since the last report did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TrainReport {
    /// Steps completed in all.
    pub step: usize,
    pub max_iters: usize,
    /// Each step's loss since the last report.
    pub losses: Vec<f32>,
    /// Each of those steps' training time since the run's first step, in seconds (see
    /// [`History::seconds`](super::History::seconds)); none for a run whose history lacks them.
    pub seconds: Vec<f32>,
    /// The last step's learning rate and gradient norm (before clipping).
    pub lr: f32,
    pub grad_norm: f32,
    /// Training speed since the last report, in all and per worker.
    pub tokens_per_s: f64,
    pub tokens_per_s_per_worker: f64,
    pub workers: usize,
    /// Time spent training since the run was created or opened here.
    pub elapsed_s: f64,
    /// Time the views' records took at evaluations in that time, beside it (their cost).
    pub records_s: f64,
    /// Their share of the time training and records took together, 0 to 1 (what the page shows).
    pub records_share: f64,
    /// The time the remaining steps will take at this session's speed.
    pub eta_s: f64,
    /// Why training stopped before the steps asked for (divergence); the steps before it count.
    pub stopped: Option<String>,
}

impl<M: Trainable> Trainer<M> {
    /// What the steps since the last report did, with this session's speed and time left.
    pub fn take_report(&mut self) -> TrainReport {
        let t = &mut self.timing;
        let losses = std::mem::take(&mut t.report_losses);
        let seconds = self
            .history
            .seconds
            .len()
            .checked_sub(losses.len())
            .map_or(vec![], |from| self.history.seconds[from..].to_vec());
        let last = t.last.unwrap_or(StepStats { step: self.step, loss: f32::NAN, lr: 0.0, grad_norm: 0.0, tokens: 0 });
        let tokens_per_s = (losses.len() * last.tokens) as f64 / (t.report_ms.max(1e-3) / 1e3);
        t.report_ms = 0.0;
        let per_step_s = t.ms / 1e3 / t.steps.max(1) as f64;
        // Workers past the step's shards have nothing to do and are not counted.
        let workers = self.workers.min(t.shards.max(1));
        TrainReport {
            step: self.step,
            max_iters: self.train.max_iters,
            losses,
            seconds,
            lr: last.lr,
            grad_norm: last.grad_norm,
            tokens_per_s,
            tokens_per_s_per_worker: tokens_per_s / workers as f64,
            workers,
            elapsed_s: t.ms / 1e3,
            records_s: t.records_ms / 1e3,
            records_share: self.records_share(),
            eta_s: self.train.max_iters.saturating_sub(self.step) as f64 * per_step_s,
            stopped: None,
        }
    }

    /// The share of this session's training and records time that the views' records took.
    pub fn records_share(&self) -> f64 {
        let t = &self.timing;
        t.records_ms / (t.ms + t.records_ms).max(1e-6)
    }

    /// Tokens per second over all the training timed in this session.
    pub fn session_tokens_per_s(&self) -> f64 {
        self.timing.tokens as f64 / (self.timing.ms / 1e3).max(1e-9)
    }
}
