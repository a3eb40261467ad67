//! Sharing a step or an evaluation with helpers. The run plans the work (`train/step.rs`,
//! `train/evaluation.rs`), hands out orders, computes its own share, takes the helpers' replies in, and
//! moves the job from phase to phase (units, then a step's update and its optimiser's pieces)
//! until it is done. The page's workers only carry the messages; natively the run has no helpers
//! and computes everything on its threads.

use super::job::Job;
use super::order::{read, Data, Outgoing, Reply, Results};
use super::partial::Partial;
use super::plan::Work;
use crate::error::{Error, Result};
use crate::run::Run;
use crate::train::{Evaluation, StepStats};
use serde::Serialize;

/// What to do: a training step or an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    Step,
    Evaluation,
}

/// How a job goes on: orders to send to helpers, what the run does next, and once done what the
/// job did.
#[derive(Debug)]
pub struct Progress {
    pub orders: Vec<Outgoing>,
    pub next: Next,
    pub outcome: Option<Outcome>,
}

/// What comes next for the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Next {
    /// It has work of its own: advance again (after a look at its messages).
    Work,
    /// It waits for a helper's reply before it can advance.
    Wait,
    /// The job is done: see the outcome.
    Done,
}

impl Progress {
    fn next(next: Next) -> Result<Progress> {
        Ok(Progress { orders: vec![], next, outcome: None })
    }

    fn done(outcome: Outcome) -> Result<Progress> {
        Ok(Progress { orders: vec![], next: Next::Done, outcome: Some(outcome) })
    }
}

/// What a finished job did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    Step(StepStats),
    Evaluation(Evaluation),
}

pub(crate) fn no_job() -> Error {
    Error::Config("no step or evaluation is in progress: begin one first".into())
}

impl Run {
    /// Begins a step or an evaluation, shared with `helpers` (none: all here), at `now_ms`:
    /// the orders to send them at once. Work left unfinished (a worker failed) is given up.
    pub fn begin(&mut self, kind: JobKind, helpers: usize, now_ms: f64) -> Result<Progress> {
        self.abort();
        let (work, rng_after) = match kind {
            JobKind::Step => self.plan_step()?,
            JobKind::Evaluation => (self.plan_evaluation()?, self.rng.clone()),
        };
        self.workers = helpers + self.workspaces.len();
        self.jobs += 1;
        let (job, orders) = Job::new(self.jobs, work, helpers, rng_after, now_ms);
        self.job = Some(job);
        Ok(Progress { orders, next: Next::Work, outcome: None })
    }

    /// Takes the job a step further: a share of the run's own work, or the next phase once
    /// everything before it is in; `now_ms` times the run's share. A failure (a step that
    /// diverged, a reply that does not fit) gives the job up, and the run stays at its last good
    /// step.
    pub fn advance(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        self.advance_job(now_ms).inspect_err(|_| self.abort())
    }

    fn advance_job(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        if let Some(units) = job.take_mine() {
            let (started, count) = (now_ms(), units.len());
            self.compute_units(units)?;
            self.job.as_mut().ok_or_else(no_job)?.timed(count, now_ms() - started);
            return Progress::next(Next::Work);
        }
        if job.update.as_ref().is_some_and(|u| !u.mine.is_empty()) {
            self.compute_pieces()?;
            return Progress::next(Next::Work);
        }
        if !job.units_done() {
            return Progress::next(Next::Wait);
        }
        match (&job.work, &job.update) {
            (Work::Step(_), None) => {
                let update = self.begin_update()?;
                let (optimizer, settings) = (self.optimizer.kind().name, &self.train.optimizer_settings);
                let orders = self.job.as_mut().ok_or_else(no_job)?.share_pieces(update, optimizer, settings);
                Ok(Progress { orders, next: Next::Work, outcome: None })
            }
            (Work::Step(_), Some(_)) => Progress::done(Outcome::Step(self.finish_step(now_ms)?)),
            (Work::Evaluation(_), _) => Progress::done(Outcome::Evaluation(self.finish_evaluation()?)),
        }
    }

    /// Takes a helper's reply in (its header, and `len` floats that `fill(at, out)` copies from
    /// its buffer): the orders it frees to send. A reply to a job given up is dropped.
    pub fn accept(
        &mut self,
        header: &str,
        len: usize,
        mut fill: impl FnMut(usize, &mut [f32]),
    ) -> Result<Vec<Outgoing>> {
        let reply: Reply = read(header, "a reply")?;
        let Some(job) = self.job.as_mut().filter(|j| j.id == reply.job) else { return Ok(vec![]) };
        match reply.results {
            Results::Partials { partials } => {
                let n = match job.work {
                    Work::Step(_) => self.model.params().count(),
                    Work::Evaluation(_) => 0,
                };
                if len != n * partials.len() {
                    return Err(Error::Data(format!(
                        "a worker sent {len} gradients; its partial sums take {}",
                        n * partials.len()
                    )));
                }
                for (i, p) in partials.into_iter().enumerate() {
                    let mut grads = self.grad_pool.scratch(n);
                    fill(i * n, &mut grads);
                    job.partials.push(Partial { first: p.first, count: p.count, loss: p.loss, exact: p.exact, grads });
                }
            }
            Results::Pieces { pieces } => {
                let update =
                    job.update.as_mut().ok_or_else(|| Error::Data("a worker sent pieces no step asked for".into()))?;
                let sizes: Option<Vec<usize>> =
                    pieces.iter().map(|&k| update.pieces.get(k).map(|p| p.values.len())).collect();
                if sizes.as_ref().map(|s| s.iter().sum::<usize>()) != Some(len) {
                    return Err(Error::Data(format!(
                        "a worker sent {len} values for pieces {pieces:?}, which do not hold them"
                    )));
                }
                let mut at = 0;
                for k in pieces {
                    let piece = &mut update.pieces[k];
                    fill(at, &mut piece.values);
                    at += piece.values.len();
                    piece.done = true;
                }
            }
        }
        Ok(job.replied(reply.helper))
    }

    /// The floats that go with an order, piece by piece, for the caller to copy into its buffer.
    pub fn order_data(&self, data: &Data) -> Vec<&[f32]> {
        match data {
            Data::None => vec![],
            Data::Weights => self.weights().map(|(_, part)| part).collect(),
            Data::Pieces(ks) => {
                let pieces = self.job.as_ref().and_then(|j| j.update.as_ref()).map_or(&[][..], |u| &u.pieces);
                ks.iter().filter_map(|&k| pieces.get(k)).map(|p| &p.values[..]).collect()
            }
        }
    }

    /// Gives up the job under way (a worker failed, or Pause came mid-evaluation); the run stays
    /// at its last good step.
    pub fn abort(&mut self) {
        if let Some(job) = self.job.take() {
            job.partials.into_iter().for_each(|p| self.grad_pool.recycle(p.grads));
            if let Some(update) = job.update {
                self.grad_pool.recycle(update.grads);
            }
        }
    }
}
