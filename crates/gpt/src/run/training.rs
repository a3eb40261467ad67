//! Training a run: AdamW steps on random batches, timed so tokens/s and the time left come from
//! one place.
//!
//! A step is planned ([`Run::begin_step`]), its shards computed (here, on threads natively, or on
//! other workers that hand back [`Partial`]s), then applied ([`Run::finish_step`]); see
//! `shards.rs` for why any number of workers gives the same result. An evaluation goes the same
//! way (`evaluation.rs`).

use super::report::TrainReport;
use super::Run;
use crate::data::{Dataset, Split};
use crate::error::{Error, Result};
use crate::optim::{clip_grad_norm, complete, global_norm, shares, Piece, Rates};
use crate::rng::Rng;
use crate::shards::{combine, shard_count, worker_shards, Partial, StepPlan, Work};
use crate::train::StepStats;
use crate::workspace::Workspace;
use std::ops::Range;

/// A step whose gradients are summed, checked and clipped, until its update is applied.
pub(super) struct PendingUpdate {
    grads: Vec<f32>,
    loss: f32,
    lr: f32,
    grad_norm: f32,
    /// The optimiser's pieces of the step, some computed (by other workers) and some not yet.
    pieces: Vec<Piece>,
    rng_after: Rng,
    started_ms: f64,
}

/// A step or an evaluation between its `begin_` and its `finish_`.
pub(super) struct PendingWork {
    pub(super) work: Work,
    /// The training stream after drawing a step's batch; the run takes it when the step lands.
    rng_after: Rng,
    pub(super) partials: Vec<Partial>,
    started_ms: f64,
}

impl Run {
    pub(super) fn data(&self) -> Result<&Dataset> {
        self.data.as_ref().ok_or_else(|| Error::Data("there is no text to train on: attach a text first".into()))
    }

    /// How many workers compute each step: threads natively (1 in wasm, where the page runs
    /// workers of its own and says how many, for the reports), at most the step's shards.
    pub fn set_workers(&mut self, workers: usize) {
        self.workers = workers.max(1);
        let threads = if cfg!(target_arch = "wasm32") { 1 } else { self.workers };
        self.workspaces.resize_with(threads, Workspace::default);
    }

    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Draws the next step's batch (and dropout seed); the run changes only when it lands.
    pub fn begin_step(&mut self, now_ms: f64) -> Result<&Work> {
        let (b, block, t) = (self.train.batch_size, self.model.config().block_size, self.seq_len());
        let (mut inputs, mut targets) = (Vec::new(), Vec::new());
        let mut rng = self.rng.clone();
        self.data()?.batch(Split::Train, b, block, &mut rng, &mut inputs, &mut targets);
        let dropout_seed = (self.model.config().dropout > 0.0).then(|| rng.next_u64());
        let shards = shard_count(b, t);
        let plan = StepPlan { shards, batch_size: b, block_size: t, inputs, targets, dropout_seed };
        Ok(self.begin(Work::Step(plan), rng, now_ms))
    }

    /// Makes `work` the run's work in progress.
    pub(super) fn begin(&mut self, work: Work, rng_after: Rng, now_ms: f64) -> &Work {
        self.abort_step(); // one left unfinished (a worker failed) gives its buffers back
        &self.pending.insert(PendingWork { work, rng_after, partials: Vec::new(), started_ms: now_ms }).work
    }

    /// The units (shards or batches) of the work in progress that each worker computes, in
    /// worker order: one contiguous range for each of the first [`Run::workers`] workers, fewer
    /// when there are fewer units than workers.
    pub fn work_split(&self) -> Result<Vec<Range<usize>>> {
        let units = self.work()?.units();
        let active = self.workers.min(units);
        Ok((0..active).map(|k| worker_shards(units, active, k)).collect())
    }

    /// The step or evaluation in progress.
    pub fn work(&self) -> Result<&Work> {
        self.pending.as_ref().map(|p| &p.work).ok_or_else(|| Error::Config("no step is in progress".into()))
    }

    fn pending_mut(&mut self) -> Result<&mut PendingWork> {
        self.pending.as_mut().ok_or_else(|| Error::Config("no step is in progress: begin one first".into()))
    }

    /// Computes units `range` of the work in progress here, on the run's threads.
    pub fn compute_shards(&mut self, range: Range<usize>) -> Result<()> {
        let pending = self.pending.as_mut().ok_or_else(|| Error::Config("no step is in progress".into()))?;
        let (model, work, grads) = (&self.model, &pending.work, &self.grad_pool);
        let threads = self.workspaces.len().min(range.len()).max(1);
        let parts: Vec<Result<Vec<Partial>>> = if threads == 1 {
            vec![work.partials(model, range, &self.workspaces[0], grads)]
        } else {
            let split = |k| {
                let r = worker_shards(range.len(), threads, k);
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
            pending.partials.extend(part?);
        }
        Ok(())
    }

    /// Adds units another worker computed: for a step, the sum of shards `first..first + count`
    /// (an aligned subtree) with their weighted `loss`, and `len` flat gradients that `fill` copies
    /// in; for an evaluation, batch `first`'s loss, its rows `exact`ly right, and no gradients.
    pub fn add_partial(
        &mut self,
        (first, count): (usize, usize),
        (loss, exact): (f64, usize),
        len: usize,
        fill: impl FnOnce(&mut [f32]),
    ) -> Result<()> {
        let n = match self.work()? {
            Work::Step(_) => self.model.params().count(),
            Work::Evaluation(_) => 0,
        };
        if len != n {
            return Err(Error::Data(format!("a worker sent {len} gradients; the work in progress takes {n}")));
        }
        let mut buffer = self.grad_pool.scratch(n);
        fill(&mut buffer);
        self.pending_mut()?.partials.push(Partial { first, count, loss, exact, grads: buffer });
        Ok(())
    }

    /// Forgets the work in progress (a worker failed); the run stays at its last good step.
    pub fn abort_step(&mut self) {
        if let Some(pending) = self.pending.take() {
            pending.partials.into_iter().for_each(|p| self.grad_pool.recycle(p.grads));
        }
        if let Some(update) = self.update.take() {
            self.grad_pool.recycle(update.grads);
        }
    }

    /// Sums the step's shards, checks and clips the gradients, and begins the optimiser's update:
    /// for Muon, the momentum and the matrices Newton–Schulz orthogonalises (which other workers
    /// may compute: [`Run::update_matrix`], [`Run::set_orthogonal`]); returns how many. A loss
    /// that is not finite or has exploded far past a uniform guess, or a non-finite gradient, is
    /// [`Error::Diverged`], and the model keeps its last good weights; so does a step whose
    /// shards are missing. Nothing is kept until [`Run::finish_step`].
    pub fn begin_update(&mut self) -> Result<usize> {
        let pending = self.pending.take().ok_or_else(|| Error::Config("no step is in progress".into()))?;
        let Work::Step(StepPlan { shards, .. }) = pending.work else {
            self.pending = Some(pending);
            return Err(Error::Config("an evaluation is in progress, not a step".into()));
        };
        let mut root = combine(pending.partials, shards, &self.grad_pool)?;
        let (loss, lr) = (root.loss as f32, self.train.schedule().lr(self.step));
        let checked = self.check_and_clip(&mut root.grads, loss, lr);
        let grad_norm = checked.inspect_err(|_| self.grad_pool.recycle(std::mem::take(&mut root.grads)))?;
        let pieces = self.optimizer.begin(&self.model.params().values, &root.grads);
        let count = pieces.len();
        let (rng_after, started_ms) = (pending.rng_after, pending.started_ms);
        self.update = Some(PendingUpdate { grads: root.grads, loss, lr, grad_norm, pieces, rng_after, started_ms });
        Ok(count)
    }

    fn pieces(&mut self) -> Result<&mut Vec<Piece>> {
        let update = self.update.as_mut().ok_or_else(|| Error::Config("no update is in progress".into()))?;
        Ok(&mut update.pieces)
    }

    fn piece(&mut self, k: usize) -> Result<&mut Piece> {
        self.pieces()?.get_mut(k).ok_or_else(|| Error::Data(format!("no piece {k} in this update")))
    }

    /// Piece `k` of the update in progress, to compute elsewhere: its rows, columns and values.
    pub fn update_matrix(&mut self, k: usize) -> Result<(usize, usize, &[f32])> {
        let p = self.piece(k)?;
        Ok((p.rows, p.cols, &p.values))
    }

    /// Which pieces of the update in progress each of `workers` workers computes, worker 0 being
    /// this run (see [`crate::optim::shares`]).
    pub fn newton_schulz_shares(&mut self, workers: usize) -> Result<Vec<Vec<usize>>> {
        let costs: Vec<usize> = self.pieces()?.iter().map(|p| p.cost).collect();
        Ok(shares(&costs, workers))
    }

    /// Computes piece `k` of the update here (the leader's share, while others do theirs).
    pub fn orthogonalize(&mut self, k: usize) -> Result<()> {
        let kind = self.optimizer.kind();
        (kind.compute)(self.piece(k)?);
        Ok(())
    }

    /// Piece `k` as another worker computed it; `fill` copies its values in.
    pub fn set_orthogonal(&mut self, k: usize, len: usize, fill: impl FnOnce(&mut [f32])) -> Result<()> {
        let piece = self.piece(k)?;
        if len != piece.values.len() {
            return Err(Error::Data(format!("piece {k} has {} values, not {len}", piece.values.len())));
        }
        fill(&mut piece.values);
        piece.done = true;
        Ok(())
    }

    /// Applies the update begun (beginning it here if it was not), any matrix not orthogonalised
    /// elsewhere orthogonalised on the run's threads. The step's time, from [`Run::begin_step`]
    /// to `now_ms()` once the update is applied, counts the update too.
    pub fn finish_step(&mut self, now_ms: &dyn Fn() -> f64) -> Result<StepStats> {
        if self.update.is_none() {
            self.begin_update()?;
        }
        let PendingUpdate { grads, loss, lr, grad_norm, mut pieces, rng_after, started_ms } =
            self.update.take().expect("begun above");
        complete(self.optimizer.kind(), &mut pieces, self.workspaces.len());
        let rates = Rates { lr, scale: lr / self.train.learning_rate };
        self.optimizer.finish(&mut self.model.params_mut().values, &grads, rates, pieces);
        self.grad_pool.recycle(grads);
        let ms = (now_ms() - started_ms).max(1e-3);
        let h = &mut self.history;
        if h.seconds.len() == h.losses.len() {
            h.seconds.push(h.seconds.last().copied().unwrap_or(0.0) + (ms / 1e3) as f32);
        }
        h.losses.push(loss);
        self.step += 1;
        self.rng = rng_after;
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
        let shards = self.begin_step(now_ms())?.units();
        if let Err(e) = self.compute_shards(0..shards) {
            self.abort_step();
            return Err(e);
        }
        self.finish_step(now_ms)
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
