//! Sharing a step, an evaluation, exact edge patching or the learning coefficient's chains with
//! helpers. The trainer plans the work (`step.rs`,
//! `evaluation.rs`), hands out orders, computes its own share, takes the helpers' replies in, and
//! moves the job from phase to phase until it is done. A step: every worker computes its shards;
//! each helper is sent the sum it lacks, as soon as it is in when that is one partial sum (with
//! two workers, the trainer's own, usually before the helper has finished), else the whole root once
//! the trainer has it; and the helper updates its copy of the model and optimiser as the trainer does,
//! sharing the optimiser's pieces. So the weights never travel between steps; the trainer's whole
//! state goes to a helper only when its copy may lack it (a new helper, new settings, a step given
//! up). The page's workers only carry the messages; natively the trainer has no helpers and computes
//! everything on its threads.

use super::history::{Evaluation, StepStats};
use super::trainable::{Batches, Trainable};
use super::trainer::Trainer;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::words::runs::bug;
use crate::work::job::{Copies, Job};
use crate::work::order::{read, PartialSum, Reply, Results};
use crate::work::{Data, Outgoing, Partial, SyncState, Work};
use serde::Serialize;

/// What to do: a training step or an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    Step,
    Evaluation,
}

/// How a job goes on: orders to send to helpers, what the trainer does next, and once done what the
/// job did.
#[derive(Debug)]
pub struct Progress {
    pub orders: Vec<Outgoing>,
    pub next: Next,
    pub outcome: Option<Outcome>,
}

/// What comes next for the trainer.
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

    pub(crate) fn done(outcome: Outcome) -> Result<Progress> {
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
    /// Every edge of the graph patched exactly: the trainer holds the scores
    /// ([`Trainer::edge_scores`]).
    Edges {
        edges: usize,
    },
    /// The learning coefficient's chains: the trainer holds the estimates ([`Trainer::llc`]).
    Llc {
        estimates: usize,
    },
    /// Every head's learning coefficient at one live record's kept weights: how many records
    /// still wait (none when none did).
    HeadsLlc {
        left: Option<usize>,
    },
}

impl Outcome {
    /// The step it was, or why it was none.
    pub fn step(self) -> Result<StepStats> {
        match self {
            Outcome::Step(stats) => Ok(stats),
            other => Err(Error::Config(bug(format!("a step was done and another job ended: {other:?}")))),
        }
    }

    /// The evaluation it was, or why it was none.
    pub fn evaluation(self) -> Result<Evaluation> {
        match self {
            Outcome::Evaluation(evaluation) => Ok(evaluation),
            other => Err(Error::Config(bug(format!("an evaluation was done and another job ended: {other:?}")))),
        }
    }
}

pub(crate) fn no_job() -> Error {
    Error::Config(bug("no job is in progress: begin one first"))
}

impl<M: Trainable> Trainer<M> {
    /// Begins a step or an evaluation on batches of `data`, shared with the helpers `helpers`
    /// names (each by an id of its own; none: all here), at `now_ms`: the orders to send them at
    /// once. Work left unfinished (a worker failed) is given up.
    pub fn begin(&mut self, kind: JobKind, helpers: &[u32], now_ms: f64, data: &dyn Batches) -> Result<Progress> {
        self.abort();
        let (work, rng_after) = match kind {
            JobKind::Step => self.plan_step(data),
            JobKind::Evaluation => (self.plan_evaluation(data), self.rng.clone()),
        };
        self.scores_answers = data.scores_answers();
        Ok(self.begin_work(work, rng_after, helpers, now_ms))
    }

    /// Begins `work` shared with `helpers`, the training stream `rng_after` once it is done.
    pub(crate) fn begin_work(&mut self, work: Work, rng_after: Rng, helpers: &[u32], now_ms: f64) -> Progress {
        self.workers = helpers.len() + self.workspaces.len();
        self.jobs += 1;
        let copies = self.copies(helpers);
        let (job, orders) = Job::new(self.jobs, work, helpers.len(), copies, rng_after, now_ms);
        self.job = Some(job);
        Progress { orders, next: Next::Work, outcome: None }
    }

    /// Where the copies of the helpers `ids` names stand against the trainer's state (a helper it
    /// has not met has none), and that state for those that may lack it.
    fn copies(&mut self, ids: &[u32]) -> Copies {
        let known = |k: usize, id: u32| self.synced.get(k).filter(|(held, _)| *held == id).and_then(|(_, step)| *step);
        self.synced = ids.iter().enumerate().map(|(k, &id)| (id, known(k, id))).collect();
        let stale = self.synced.iter().map(|(_, step)| *step != Some(self.step));
        let stale: Vec<bool> = std::iter::once(false).chain(stale).collect();
        let sync = stale.iter().any(|&s| s).then(|| SyncState {
            train: self.train.clone(),
            dropout: self.model.dropout(),
            uniform_loss: self.model.uniform_loss(),
            optimizer_steps: self.optimizer.steps(),
            tensors: self.optimizer.state().into_iter().map(|(name, t)| (name, t.shape().to_vec())).collect(),
        });
        Copies { step: self.step, stale, sync }
    }

    /// Records which helpers' copies hold the trainer's state once `job` is done.
    pub(crate) fn settle_copies(&mut self, job: &Job) {
        for (k, (_, step)) in self.synced.iter_mut().enumerate() {
            *step = job.holds(k + 1).then_some(self.step);
        }
    }

    /// Takes the job a step further: a share of the trainer's own work, or the next phase once
    /// everything before it is in; `now_ms` times the trainer's share. A failure (a step that
    /// diverged, a reply that does not fit) gives the job up, and the trainer stays at its last good
    /// step.
    pub fn advance(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        self.advance_job(now_ms).inspect_err(|_| self.abort())
    }

    fn advance_job(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        if let Some(units) = job.take_mine() {
            let (started, count) = (now_ms(), units.len());
            self.compute_units(units)?;
            let job = self.job.as_mut().ok_or_else(no_job)?;
            job.timed(count, now_ms() - started);
            return Ok(Progress { orders: job.ready(), next: Next::Work, outcome: None });
        }
        if job.update.as_ref().is_some_and(|u| !u.mine.is_empty()) {
            self.compute_pieces()?;
            let orders = self.job.as_mut().ok_or_else(no_job)?.ready();
            return Ok(Progress { orders, next: Next::Work, outcome: None });
        }
        if !job.units_done() {
            return Progress::next(Next::Wait);
        }
        match (&job.work, &job.update) {
            (Work::Step(_), None) => Ok(Progress { orders: self.start_update()?, next: Next::Work, outcome: None }),
            (Work::Step(_), Some(_)) if !job.pieces_done() => Progress::next(Next::Wait),
            (Work::Step(_), Some(_)) => Progress::done(Outcome::Step(self.finish_step(now_ms)?)),
            (Work::Evaluation(_), _) => Progress::done(Outcome::Evaluation(self.finish_evaluation()?)),
            (Work::Edges(_), _) => Progress::done(Outcome::Edges { edges: self.finish_edges(now_ms())? }),
            (Work::Llc(_), _) => Progress::done(Outcome::Llc { estimates: self.finish_llc(now_ms())? }),
        }
    }

    /// Begins the step's update once its shards are all in: first the sums any helper still
    /// lacks go out (summing reuses their buffers), then the root goes to the helpers that lack
    /// more than one sum (their copies clip it and update as the trainer does): the orders each
    /// call frees, until the update begins.
    fn start_update(&mut self) -> Result<Vec<Outgoing>> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let sums = job.ready();
        if !sums.is_empty() {
            return Ok(sums);
        }
        if job.root.is_none() {
            self.sum_shards()?;
            let roots = self.job.as_mut().ok_or_else(no_job)?.root_orders();
            if !roots.is_empty() {
                return Ok(roots);
            }
        }
        let update = self.begin_update()?;
        let job = self.job.as_mut().ok_or_else(no_job)?;
        job.begin_update(update);
        Ok(job.ready())
    }

    /// Takes a helper's reply in (its header, and `len` floats that `fill(at, out)` copies from
    /// its buffer): the orders it frees to send. A reply to a job given up is dropped.
    pub fn accept(&mut self, header: &str, len: usize, fill: impl FnMut(usize, &mut [f32])) -> Result<Vec<Outgoing>> {
        let reply: Reply = read(header, "a reply")?;
        if self.job.as_ref().is_none_or(|j| j.id != reply.job) {
            return Ok(vec![]);
        }
        match reply.results {
            Results::Partials { partials } => self.take_partials(reply.helper, partials, len, fill),
            Results::Pieces { pieces } => self.take_pieces(&pieces, len, fill),
            Results::Stepped => Ok(vec![]), // the trainer never waits for it
        }
    }

    fn take_partials(
        &mut self,
        helper: usize,
        partials: Vec<PartialSum>,
        len: usize,
        mut fill: impl FnMut(usize, &mut [f32]),
    ) -> Result<Vec<Outgoing>> {
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let n = match job.work {
            Work::Step(_) => self.model.grad_len(),
            Work::Evaluation(_) | Work::Edges(_) => 0,
            Work::Llc(ref plan) => plan.config.draws,
        };
        if len != n * partials.len() {
            return Err(Error::Data(bug(format!(
                "a worker sent {len} gradients; its partial sums take {}",
                n * partials.len()
            ))));
        }
        for (i, p) in partials.into_iter().enumerate() {
            let mut grads = self.grad_pool.scratch(n);
            fill(i * n, &mut grads);
            job.partials.push(Partial { first: p.first, count: p.count, loss: p.loss, exact: p.exact, grads });
        }
        let mut orders = job.replied(helper);
        orders.extend(job.ready());
        Ok(orders)
    }

    /// A helper's share of the update's pieces. It may come before the trainer has begun the update
    /// (the helper had its sums as soon as the trainer's own shards were done): then it begins now.
    fn take_pieces(
        &mut self,
        pieces: &[usize],
        len: usize,
        fill: impl FnMut(usize, &mut [f32]),
    ) -> Result<Vec<Outgoing>> {
        let mut orders = vec![];
        let job = self.job.as_mut().ok_or_else(no_job)?;
        if job.update.is_none() && job.units_done() {
            orders = self.start_update()?;
        }
        let job = self.job.as_mut().ok_or_else(no_job)?;
        let update = job.update.as_mut().ok_or_else(|| Error::Data(bug("a worker sent pieces no step asked for")))?;
        update.fill(pieces, len, fill)?;
        orders.extend(job.ready());
        Ok(orders)
    }

    /// The floats that go with an order, piece by piece, for the caller to copy into its buffer.
    pub fn order_data(&self, data: &Data) -> Vec<&[f32]> {
        let job = self.job.as_ref();
        match data {
            Data::None => vec![],
            Data::Sync => {
                let state = self.optimizer.state().into_iter().map(|(_, t)| t.as_slice().unwrap_or(&[]));
                let params = self.model.params().flat_parts().map(|(_, part)| part);
                params.chain(state).chain(self.model.held_parts()).collect()
            }
            Data::Partials(is) => {
                let partials = job.map_or(&[][..], |j| &j.partials);
                is.iter().filter_map(|&i| partials.get(i)).map(|p| &p.grads[..]).collect()
            }
            Data::Root => job.and_then(|j| j.root.as_ref()).map(|r| &r.grads[..]).into_iter().collect(),
            Data::Pieces(ks) => {
                let pieces = job.and_then(|j| j.update.as_ref()).map_or(&[][..], |u| &u.pieces);
                ks.iter().filter_map(|&k| pieces.get(k)).map(|p| &p.values[..]).collect()
            }
        }
    }

    /// Gives up the job under way (a worker failed, or Pause came mid-evaluation); the trainer stays
    /// at its last good step. Helpers sent a step's sums may have applied it: each is sent the
    /// state again.
    pub fn abort(&mut self) {
        if let Some(job) = self.job.take() {
            if matches!(job.work, Work::Step(_)) {
                self.synced.clear();
            }
            job.partials.into_iter().chain(job.root).for_each(|p| self.grad_pool.recycle(p.grads));
            if let Some(update) = job.update {
                self.grad_pool.recycle(update.grads);
            }
        }
    }
}
