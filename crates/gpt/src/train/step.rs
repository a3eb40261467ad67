//! A run's training steps on random batches, timed so tokens/s and the time left come from one
//! place. A step is a job (`work/sharing.rs`): planned here ([`Run::plan_step`]), its shards computed
//! by the run and any helpers, then summed, checked and clipped ([`Run::begin_update`]), the
//! optimiser's pieces computed, and applied ([`Run::finish_step`]). See `work/partial.rs` for why
//! any number of workers gives the same result.

use super::history::StepStats;
use super::report::TrainReport;
use crate::data::{Dataset, Split};
use crate::error::{Error, Result};
use crate::optim::{clip_grad_norm, complete, global_norm, Rates};
use crate::rng::Rng;
use crate::run::Run;
use crate::work::job::Update;
use crate::work::sharing::{no_job, JobKind, Outcome};
use crate::work::{combine, shard_count, worker_units, Partial, StepPlan, Work};
use crate::workspace::Workspace;
use std::ops::Range;

impl Run {
    pub(crate) fn data(&self) -> Result<&Dataset> {
        self.data.as_ref().ok_or_else(|| Error::Data("there is no text to train on: attach a text first".into()))
    }

    /// How many threads compute the run's own share of each job (natively; 1 in wasm, where the
    /// page's helpers are Web Workers of their own).
    pub fn set_threads(&mut self, threads: usize) {
        let threads = if cfg!(target_arch = "wasm32") { 1 } else { threads.max(1) };
        self.workspaces.resize_with(threads, Workspace::default);
        self.workers = threads;
    }

    /// How many compute each step: the run's threads and its helpers.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Draws the next step's batch (and dropout seed): its plan, and the training stream after
    /// it, which the run keeps only when the step lands.
    pub(crate) fn plan_step(&self) -> Result<(Work, Rng)> {
        let (b, block, t) = (self.train.batch_size, self.model.config().block_size, self.seq_len());
        let (mut inputs, mut targets) = (Vec::new(), Vec::new());
        let mut rng = self.rng.clone();
        self.data()?.batch(Split::Train, b, block, &mut rng, &mut inputs, &mut targets);
        let dropout_seed = (self.model.config().dropout > 0.0).then(|| rng.next_u64());
        let shards = shard_count(b, t);
        let plan = StepPlan { shards, batch_size: b, block_size: t, inputs, targets, dropout_seed };
        Ok((Work::Step(plan), rng))
    }

    /// Computes units `range` of the job under way here, on the run's threads.
    pub(crate) fn compute_units(&mut self, range: Range<usize>) -> Result<()> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let (model, work, grads) = (&self.model, &job.work, &self.grad_pool);
        let threads = self.workspaces.len().min(range.len()).max(1);
        let parts: Vec<Result<Vec<Partial>>> = if threads == 1 {
            vec![work.partials(model, range, &self.workspaces[0], grads)]
        } else {
            let split = |k| {
                let r = worker_units(range.len(), threads, k);
                range.start + r.start..range.start + r.end
            };
            std::thread::scope(|scope| {
                let handles: Vec<_> = (1..threads)
                    .map(|k| {
                        let ws = &self.workspaces[k];
                        scope.spawn(move || work.partials(model, split(k), ws, grads))
                    })
                    .collect();
                let mut parts = vec![work.partials(model, split(0), &self.workspaces[0], grads)];
                parts.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(worker_died()))));
                parts
            })
        };
        for part in parts {
            job.partials.extend(part?);
        }
        Ok(())
    }

    /// Sums the step's shards, checks and clips the gradients, and begins the optimiser's update:
    /// its pieces, to compute before [`Run::finish_step`]. A loss that is not finite or has
    /// exploded far past a uniform guess, or a non-finite gradient, is [`Error::Diverged`], and
    /// the model keeps its last good weights; so does a step whose shards are missing.
    pub(crate) fn begin_update(&mut self) -> Result<Update> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let Work::Step(StepPlan { shards, .. }) = job.work else {
            return Err(Error::Config("an evaluation is in progress, not a step".into()));
        };
        let mut root = combine(std::mem::take(&mut job.partials), shards, &self.grad_pool)?;
        let (loss, lr) = (root.loss as f32, self.train.schedule().lr(self.step));
        let checked = self.check_and_clip(&mut root.grads, loss, lr);
        let grad_norm = checked.inspect_err(|_| self.grad_pool.recycle(std::mem::take(&mut root.grads)))?;
        let pieces = self.optimizer.begin(&self.model.params().values, &root.grads);
        Ok(Update { grads: root.grads, loss, lr, grad_norm, pieces, mine: vec![] })
    }

    /// Computes the run's own share of the update's pieces, on its threads.
    pub(crate) fn compute_pieces(&mut self) -> Result<()> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let update = job.update.as_mut().ok_or_else(|| Error::Config("no update is in progress".into()))?;
        let mine = std::mem::take(&mut update.mine);
        let pieces = update.pieces.iter_mut().enumerate().filter(|(k, _)| mine.contains(k)).map(|(_, p)| p);
        complete(self.optimizer.kind(), self.train.hyper().own, pieces.collect(), self.workspaces.len());
        Ok(())
    }

    /// Applies the update, every piece computed. The step's time, from its plan to `now_ms()`
    /// once the update is applied, counts the update too.
    pub(crate) fn finish_step(&mut self, now_ms: &dyn Fn() -> f64) -> Result<StepStats> {
        let job = self.job.take().ok_or_else(no_job)?;
        let Some(Update { grads, loss, lr, grad_norm, pieces, .. }) = job.update else {
            return Err(Error::Config("the step's update has not begun".into()));
        };
        if let Some(k) = pieces.iter().position(|p| !p.done) {
            self.grad_pool.recycle(grads);
            return Err(Error::Data(format!("piece {k} of the step's update was never computed")));
        }
        let rates = Rates { lr, scale: lr / self.train.learning_rate };
        self.optimizer.finish(&mut self.model.params_mut().values, &grads, rates, pieces);
        self.grad_pool.recycle(grads);
        let ms = (now_ms() - job.started_ms).max(1e-3);
        let h = &mut self.history;
        if h.seconds.len() == h.losses.len() {
            h.seconds.push(h.seconds.last().copied().unwrap_or(0.0) + (ms / 1e3) as f32);
        }
        h.losses.push(loss);
        self.step += 1;
        self.rng = job.rng_after;
        let stats = StepStats { step: self.step, loss, lr, grad_norm, tokens: self.tokens_per_step() };
        let t = &mut self.timing;
        (t.ms, t.steps, t.report_ms, t.last) = (t.ms + ms, t.steps + 1, t.report_ms + ms, Some(stats));
        t.report_losses.push(stats.loss);
        Ok(stats)
    }

    /// Checks a step's loss and summed gradients, and clips them; returns their norm before clipping.
    fn check_and_clip(&self, grads: &mut [f32], loss: f32, lr: f32) -> Result<f32> {
        let diverged = |what: String| {
            Error::Diverged(format!(
                "training diverged at step {}: {what}. The model keeps its weights from before this step. \
                 Lower the learning rate (it is {lr:.2e}){}",
                self.step + 1,
                if self.train.grad_clip > 0.0 { "." } else { " or turn gradient clipping on (grad_clip 1.0)." }
            ))
        };
        // Far above a uniform guess, the model is no longer learning but blowing up, even while
        // the numbers stay finite (normalisation keeps them bounded).
        let uniform = self.uniform_loss();
        if !loss.is_finite() || loss > 3.0 * uniform + 10.0 {
            return Err(diverged(format!("the loss became {loss}, against {uniform:.2} for a uniform guess")));
        }
        let clip = self.train.grad_clip;
        let grad_norm = if clip > 0.0 { clip_grad_norm(grads, clip) } else { global_norm(grads) };
        if !grad_norm.is_finite() {
            return Err(diverged("the gradient became infinite or NaN".into()));
        }
        Ok(grad_norm)
    }

    /// One whole step on this run's threads, timed with `now_ms`.
    pub fn step(&mut self, now_ms: &dyn Fn() -> f64) -> Result<StepStats> {
        match self.run_alone(JobKind::Step, now_ms)? {
            Outcome::Step(stats) => Ok(stats),
            Outcome::Evaluation(_) => Err(Error::Config("a step ended as an evaluation".into())),
        }
    }

    /// A whole job on this run's threads, with no helpers.
    pub(crate) fn run_alone(&mut self, kind: JobKind, now_ms: &dyn Fn() -> f64) -> Result<Outcome> {
        self.begin(kind, 0, now_ms())?;
        loop {
            if let Some(outcome) = self.advance(now_ms)?.outcome {
                return Ok(outcome);
            }
        }
    }

    /// Up to `n` steps (at least one), never past `max_iters`, timed with `now_ms` (a clock in
    /// milliseconds: `performance.now` in a page, a monotonic clock natively). Divergence ends
    /// the call early, with the reason in [`TrainReport::stopped`].
    pub fn train(&mut self, n: usize, now_ms: &dyn Fn() -> f64) -> Result<TrainReport> {
        self.data()?;
        let n = n.max(1).min(self.train.max_iters.saturating_sub(self.step));
        let stopped = (0..n).find_map(|_| self.step(now_ms).err());
        Ok(TrainReport { stopped: stopped.map(|e| e.to_string()), ..self.take_report() })
    }
}

fn worker_died() -> Error {
    Error::Config("a training thread stopped unexpectedly; the model keeps its last good step".into())
}
