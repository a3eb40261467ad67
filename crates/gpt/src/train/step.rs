//! Training steps on random batches, timed so tokens/s and the time left come from one place. A
//! step is a job (`sharing.rs`): planned here ([`Trainer::plan_step`]), its shards computed by
//! the trainer and any helpers (`units.rs`), then summed ([`Trainer::sum_shards`]), checked and
//! clipped ([`Trainer::begin_update`]), the optimiser's pieces computed, and applied
//! ([`Trainer::finish_step`]), by the same code (`update.rs`) here and on each helper. See
//! `work/partial.rs` for why any number of workers gives the same result.

use super::history::StepStats;
use super::report::TrainReport;
use super::sharing::{no_job, JobKind, Outcome};
use super::trainable::{Batches, Trainable};
use super::trainer::Trainer;
use super::update::{Applied, Rules};
use crate::error::{Error, Result};
use crate::optim::complete;
use crate::rng::Rng;
use crate::words::{runs, runs::bug};
use crate::work::{combine, shard_count, worker_units, Split, StepPlan, Update, Work};
use crate::workspace::Workspace;
use std::ops::Range;

impl<M: Trainable> Trainer<M> {
    /// Draws the next step's batch from `data` (and dropout seed): its plan, and the training
    /// stream after it, which the trainer keeps only when the step lands.
    pub(crate) fn plan_step(&self, data: &dyn Batches) -> (Work, Rng) {
        let (b, block) = (self.train.batch_size, self.model.block_size());
        let t = data.seq_len(block);
        let (mut inputs, mut targets) = (Vec::new(), Vec::new());
        let mut rng = self.rng.clone();
        data.batch(Split::Train, b, block, &mut rng, &mut inputs, &mut targets);
        let dropout_seed = (self.model.dropout() > 0.0).then(|| rng.next_u64());
        let shards = shard_count(b, t);
        let plan = StepPlan { shards, batch_size: b, block_size: t, inputs, targets, dropout_seed };
        (Work::Step(plan), rng)
    }

    /// Computes units `range` of the job under way here, on the trainer's threads.
    pub(crate) fn compute_units(&mut self, range: Range<usize>) -> Result<()> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let (model, work, grads) = (&self.model, &job.work, &self.grad_pool);
        let parts =
            on_threads(&self.workspaces, range, |units, ws| super::units::partials(model, work, units, ws, grads));
        for part in parts {
            job.partials.extend(part?);
        }
        Ok(())
    }

    /// What the next update reads beside the model and the optimiser.
    pub(crate) fn rules(&self) -> Rules<'_> {
        Rules { train: &self.train, step: self.step, uniform_loss: self.model.uniform_loss() }
    }

    /// Sums the step's shards into its root, which the job keeps; the model keeps its last good
    /// weights when shards are missing.
    pub(crate) fn sum_shards(&mut self) -> Result<()> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let Work::Step(StepPlan { shards, .. }) = job.work else {
            return Err(Error::Config(bug("an evaluation is in progress, not a step")));
        };
        job.root = Some(combine(std::mem::take(&mut job.partials), shards, &self.grad_pool)?);
        Ok(())
    }

    /// Begins the update from the step's summed gradients ([`Rules::begin`]); on failure the
    /// model keeps its last good weights.
    pub(crate) fn begin_update(&mut self) -> Result<Update> {
        let root = self.job.as_mut().and_then(|j| j.root.take());
        let root = root.ok_or_else(|| Error::Config(bug("the step's shards have not been summed")))?;
        self.rules().begin(root, self.model.params(), self.optimizer.as_ref(), &self.grad_pool)
    }

    /// Computes the trainer's own share of the update's pieces, on its threads.
    pub(crate) fn compute_pieces(&mut self) -> Result<()> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let update = job.update.as_mut().ok_or_else(|| Error::Config(bug("no update is in progress")))?;
        let mine = std::mem::take(&mut update.mine);
        let pieces = update.pieces.iter_mut().enumerate().filter(|(k, _)| mine.contains(k)).map(|(_, p)| p);
        complete(self.optimizer.kind(), self.train.hyper().own, pieces.collect(), self.workspaces.len());
        Ok(())
    }

    /// Applies the update, every piece computed. The step's time, from its plan to `now_ms()`
    /// once the update is applied, counts the update too. The helpers that were sent the step's
    /// sums have applied it too.
    pub(crate) fn finish_step(&mut self, now_ms: &dyn Fn() -> f64) -> Result<StepStats> {
        let mut job = self.job.take().ok_or_else(no_job)?;
        let update = job.update.take().ok_or_else(|| Error::Config(bug("the step's update has not begun")))?;
        let rules = Rules { train: &self.train, step: self.step, uniform_loss: self.model.uniform_loss() };
        let params = self.model.params_mut();
        let applied = rules.finish(update, params, self.optimizer.as_mut(), &self.grad_pool);
        let Applied { loss, lr, grad_norm, tallies } = applied.inspect_err(|_| self.synced.clear())?;
        self.model.after_step(&tallies);
        let ms = (now_ms() - job.started_ms).max(1e-3);
        let h = &mut self.history;
        if h.seconds.len() == h.losses.len() {
            h.seconds.push(h.seconds.last().copied().unwrap_or(0.0) + (ms / 1e3) as f32);
        }
        h.losses.push(loss);
        self.step += 1;
        self.settle_copies(&job);
        self.rng = job.rng_after;
        let Work::Step(plan) = &job.work else { unreachable!("a step's job holds a step's plan") };
        let stats = StepStats { step: self.step, loss, lr, grad_norm, tokens: plan.batch_size * plan.block_size };
        self.timing.stepped(stats, ms, plan.shards);
        Ok(stats)
    }

    /// One whole step on the trainer's threads, on a batch of `data`, timed with `now_ms`.
    pub fn step(&mut self, data: &dyn Batches, now_ms: &dyn Fn() -> f64) -> Result<StepStats> {
        self.run_alone(JobKind::Step, data, now_ms)?.step()
    }

    /// A whole job on the trainer's threads, with no helpers.
    pub(crate) fn run_alone(&mut self, kind: JobKind, data: &dyn Batches, now_ms: &dyn Fn() -> f64) -> Result<Outcome> {
        self.begin(kind, &[], now_ms(), data)?;
        loop {
            if let Some(outcome) = self.advance(now_ms)?.outcome {
                return Ok(outcome);
            }
        }
    }

    /// Up to `n` steps on `data` (at least one), never past `max_iters`, timed with `now_ms` (a
    /// clock in milliseconds: `performance.now` in a page, a monotonic clock natively).
    /// Divergence ends the call early, with the reason in [`TrainReport::stopped`].
    pub fn train(&mut self, n: usize, data: &dyn Batches, now_ms: &dyn Fn() -> f64) -> TrainReport {
        let n = n.max(1).min(self.train.max_iters.saturating_sub(self.step));
        let stopped = (0..n).find_map(|_| self.step(data, now_ms).err());
        TrainReport { stopped: stopped.map(|e| e.to_string()), ..self.take_report() }
    }
}

fn worker_died() -> Error {
    Error::Config(runs::thread_stopped())
}

/// `compute` on contiguous shares of `range`, one on each of `workspaces`' threads (the first on
/// this one): each share's result, in order.
pub(crate) fn on_threads<T: Send>(
    workspaces: &[Workspace],
    range: Range<usize>,
    compute: impl Fn(Range<usize>, &Workspace) -> Result<T> + Sync,
) -> Vec<Result<T>> {
    let threads = workspaces.len().min(range.len()).max(1);
    let split = |k| {
        let r = worker_units(range.len(), threads, k);
        range.start + r.start..range.start + r.end
    };
    if threads == 1 {
        return vec![compute(range.clone(), &workspaces[0])];
    }
    let compute = &compute;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|k| {
                let (ws, units) = (&workspaces[k], split(k));
                scope.spawn(move || compute(units, ws))
            })
            .collect();
        let mut parts = vec![compute(split(0), &workspaces[0])];
        parts.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(worker_died()))));
        parts
    })
}
