//! A step or an evaluation under way, shared between the run (worker 0) and its helpers: which
//! units each computes, which orders go out when, and what has come back. The run drives it
//! (`sharing.rs`); this file keeps the books.

use super::order::{write, Assignment, Data, Order, Outgoing, PartialSum, SyncState};
use super::partial::{worker_units, Partial};
use super::plan::Work;
use crate::error::{Error, Result};
use crate::optim::{shares, Piece};
use crate::rng::Rng;
use serde_json::value::RawValue;
use std::ops::Range;

/// About how long one chunk of an evaluation takes on the run's own worker.
const CHUNK_MS: f64 = 400.0;
/// Chunks each helper has queued during an evaluation, so that it never waits for the run.
const QUEUED: usize = 2;

/// Work shared with helpers, from its plan to its last reply.
pub(crate) struct Job {
    pub id: u64,
    pub work: Work,
    /// The plan as helpers read it, written once.
    plan: Box<RawValue>,
    pub helpers: usize,
    /// Workers computing a step's shards: the run and helpers `1..workers` (the rest have none).
    workers: usize,
    /// What has been computed, here and by helpers.
    pub partials: Vec<Partial>,
    /// A step's partial sums summed, once all are in, until its update begins.
    pub root: Option<Partial>,
    schedule: Schedule,
    /// The run's steps so far: every helper's copy must be at it.
    step: usize,
    /// The run's state, for helpers whose copy may not hold it (see `stale`).
    sync: Option<SyncState>,
    /// Whether each helper (1 and up) has been sent this job's plan.
    primed: Vec<bool>,
    /// Whether each helper's copy may not hold the run's state: its first order brings it.
    stale: Vec<bool>,
    /// Orders out whose replies the run waits for.
    pub outstanding: usize,
    /// The training stream after a step's batch, which the run takes when the step lands.
    pub rng_after: Rng,
    pub started_ms: f64,
    /// A step's update, once its shards are all in.
    pub update: Option<Update>,
    /// Each helper's share of the update's pieces.
    shares: Vec<Vec<usize>>,
    /// Whether each helper has been sent the step's sums, and the pieces it lacks.
    summed: Vec<bool>,
    completed: Vec<bool>,
}

/// Who computes which units.
enum Schedule {
    /// A step's shards: a fixed contiguous range for each worker (the run's own, until taken).
    Fixed { mine: Option<Range<usize>> },
    /// An evaluation's batches: a chunk at a time to whichever worker is free. A core slowed by
    /// other work then computes fewer batches, where equal shares would keep every other core
    /// waiting for it. Chunks grow to about [`CHUNK_MS`] of the run's work, and shrink towards
    /// the end.
    Pool { next: usize, units: usize, size: usize },
}

/// A step's update: its gradients summed, checked and clipped, and its optimiser's pieces.
pub(crate) struct Update {
    pub grads: Vec<f32>,
    pub loss: f32,
    pub lr: f32,
    pub grad_norm: f32,
    pub pieces: Vec<Piece>,
    /// The pieces this worker computes; the others compute the rest.
    pub mine: Vec<usize>,
}

impl Update {
    /// Takes in computed `pieces`, `len` values in all that `fill(at, out)` copies, one piece
    /// after another.
    pub fn fill(&mut self, pieces: &[usize], len: usize, mut fill: impl FnMut(usize, &mut [f32])) -> Result<()> {
        let sizes: Option<Vec<usize>> = pieces.iter().map(|&k| self.pieces.get(k).map(|p| p.values.len())).collect();
        if sizes.as_ref().map(|s| s.iter().sum::<usize>()) != Some(len) {
            return Err(Error::Data(format!("{len} values came for pieces {pieces:?}, which do not hold them")));
        }
        let mut at = 0;
        for &k in pieces {
            let piece = &mut self.pieces[k];
            fill(at, &mut piece.values);
            at += piece.values.len();
            piece.done = true;
        }
        Ok(())
    }
}

/// The helpers' copies as a job begins: the run's step, which helpers' copies may not be at it,
/// and the state that brings them there.
pub(crate) struct Copies {
    pub step: usize,
    /// By helper, from 1 (0 is the run).
    pub stale: Vec<bool>,
    pub sync: Option<SyncState>,
}

impl Job {
    /// Job `id` for `work`, shared with `helpers` whose `copies` are as said, and the orders to
    /// send at once.
    pub fn new(
        id: u64,
        work: Work,
        helpers: usize,
        copies: Copies,
        rng_after: Rng,
        started_ms: f64,
    ) -> (Job, Vec<Outgoing>) {
        let plan = RawValue::from_string(work.to_json()).expect("a plan is valid JSON");
        let units = work.units();
        let workers = (helpers + 1).min(units.max(1));
        let schedule = match work {
            Work::Step(_) => Schedule::Fixed { mine: Some(worker_units(units, workers, 0)) },
            Work::Evaluation(_) => Schedule::Pool { next: 0, units, size: 1 },
        };
        let none = vec![false; helpers + 1];
        let mut job = Job {
            id,
            work,
            plan,
            helpers,
            workers,
            partials: vec![],
            root: None,
            schedule,
            step: copies.step,
            sync: copies.sync,
            primed: none.clone(),
            stale: copies.stale,
            outstanding: 0,
            rng_after,
            started_ms,
            update: None,
            shares: vec![],
            summed: none.clone(),
            completed: none,
        };
        let orders = match job.schedule {
            Schedule::Fixed { .. } => {
                (1..workers).map(|h| job.units_order(h, worker_units(units, workers, h))).collect()
            }
            Schedule::Pool { .. } => (0..QUEUED).flat_map(|_| 1..=helpers).filter_map(|h| job.chunk_order(h)).collect(),
        };
        (job, orders)
    }

    /// An order for `helper` to compute units `range`: with the plan the first time, and the
    /// run's state if its copy may lack it.
    fn units_order(&mut self, helper: usize, range: Range<usize>) -> Outgoing {
        let first = !std::mem::replace(&mut self.primed[helper], true);
        let sync = first && std::mem::replace(&mut self.stale[helper], false);
        self.outstanding += 1;
        let plan = first.then(|| self.plan.clone());
        let state = if sync { self.sync.clone() } else { None };
        let assignment = Assignment::Units { first: range.start, end: range.end, plan, step: self.step, sync: state };
        let header = write(&Order { job: self.id, helper, assignment });
        Outgoing { to: helper, header, data: if sync { Data::Sync } else { Data::None } }
    }

    /// The next chunk of a pool, if any is left.
    fn take_chunk(&mut self) -> Option<Range<usize>> {
        match &mut self.schedule {
            Schedule::Pool { next, units, size } if *next < *units => {
                let end = (*next + *size).min(*units);
                Some(std::mem::replace(next, end)..end)
            }
            _ => None,
        }
    }

    fn chunk_order(&mut self, helper: usize) -> Option<Outgoing> {
        let range = self.take_chunk()?;
        Some(self.units_order(helper, range))
    }

    /// The units the run computes next, if it has any left.
    pub fn take_mine(&mut self) -> Option<Range<usize>> {
        match &mut self.schedule {
            Schedule::Fixed { mine } => mine.take(),
            Schedule::Pool { .. } => self.take_chunk(),
        }
    }

    /// The run computed `units` units in `ms`: a pool's chunks grow to about [`CHUNK_MS`] of its
    /// work, but never past a share of what is left, so that the workers finish together.
    pub fn timed(&mut self, units: usize, ms: f64) {
        let workers = self.helpers + 1;
        if let Schedule::Pool { next, units: all, size } = &mut self.schedule {
            let per_unit = (ms / units.max(1) as f64).max(1e-3);
            let share = (*all - *next).div_ceil(2 * workers);
            *size = ((CHUNK_MS / per_unit).round() as usize).min(share).max(1);
        }
    }

    /// A reply the run waited for from `helper` is in: one order fewer out, and for a pool the
    /// helper's next chunk.
    pub fn replied(&mut self, helper: usize) -> Vec<Outgoing> {
        self.outstanding = self.outstanding.saturating_sub(1);
        match self.schedule {
            Schedule::Pool { .. } if helper >= 1 && helper <= self.helpers => {
                self.chunk_order(helper).into_iter().collect()
            }
            _ => vec![],
        }
    }

    /// Whether every unit has been computed and has come back.
    pub fn units_done(&self) -> bool {
        let mine_done = match &self.schedule {
            Schedule::Fixed { mine } => mine.is_none(),
            Schedule::Pool { next, units, .. } => next >= units,
        };
        mine_done && self.outstanding == 0
    }

    /// Keeps `update` and shares its pieces out by their cost among the step's workers, as each
    /// helper does too: the run computes the first share.
    pub fn begin_update(&mut self, mut update: Update) {
        let costs: Vec<usize> = update.pieces.iter().map(|p| p.cost).collect();
        self.shares = shares(&costs, self.workers);
        update.mine = self.shares.first().cloned().unwrap_or_default();
        self.update = Some(update);
    }

    /// Whether every piece of the update has been computed, here or by a helper.
    pub fn pieces_done(&self) -> bool {
        self.update.as_ref().is_some_and(|u| u.pieces.iter().all(|p| p.done))
    }

    /// The orders the step's progress has made ready: each helper's sums, once every partial sum
    /// outside its own shards is in; then, once the update has begun, the pieces it did not
    /// compute, once those are. A helper with all of them updates its copy as the run does.
    pub fn ready(&mut self) -> Vec<Outgoing> {
        if !matches!(self.work, Work::Step(_)) {
            return vec![];
        }
        let mut orders = vec![];
        for h in 1..self.workers {
            if !self.summed[h] {
                orders.extend(self.sums_order(h));
            } else if !self.completed[h] {
                orders.extend(self.pieces_order(h));
            }
        }
        orders
    }

    /// Helper `h`'s sums, once in, when they are one partial sum: every shard outside its own.
    /// (Several go to it as the root: relayed one by one, they would cost the run more copies.)
    fn sums_order(&mut self, h: usize) -> Option<Outgoing> {
        let units = self.work.units();
        let own = worker_units(units, self.workers, h);
        let outside = |p: &Partial| p.first + p.count <= own.start || p.first >= own.end;
        let only = self.partials.iter().position(|p| outside(p) && p.count + own.len() == units)?;
        let sum = self.partials[only].figures();
        Some(self.sum_order(h, sum, Data::Partials(vec![only])))
    }

    /// The root's orders, for the helpers not yet sent their sums.
    pub fn root_orders(&mut self) -> Vec<Outgoing> {
        let Some(root) = self.root.as_ref().map(Partial::figures) else { return vec![] };
        (1..self.workers)
            .filter(|&h| !self.summed[h])
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| self.sum_order(h, root, Data::Root))
            .collect()
    }

    /// Sends helper `h` the sum `sum`, its gradients in `data`.
    fn sum_order(&mut self, h: usize, sum: PartialSum, data: Data) -> Outgoing {
        self.summed[h] = true;
        let assignment = Assignment::Sum { partials: vec![sum], workers: self.workers };
        Outgoing { to: h, header: write(&Order { job: self.id, helper: h, assignment }), data }
    }

    /// Helper `h`'s pieces: those of the update it did not compute, if all are computed.
    fn pieces_order(&mut self, h: usize) -> Option<Outgoing> {
        let update = self.update.as_ref()?;
        let lacking: Vec<usize> = (0..update.pieces.len()).filter(|k| !self.shares[h].contains(k)).collect();
        if !lacking.iter().all(|&k| update.pieces[k].done) {
            return None;
        }
        self.completed[h] = true;
        if lacking.is_empty() {
            return None; // its own share was the whole update
        }
        let assignment = Assignment::Pieces { pieces: lacking.clone() };
        Some(Outgoing {
            to: h,
            header: write(&Order { job: self.id, helper: h, assignment }),
            data: Data::Pieces(lacking),
        })
    }

    /// Whether `helper`'s copy holds the run's state once this job is done: for a step, whether
    /// it was sent all it needs to update it as the run does.
    pub fn holds(&self, helper: usize) -> bool {
        match self.work {
            Work::Step(_) => self.summed[helper] && self.completed[helper],
            Work::Evaluation(_) => !self.stale[helper],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::eval_plan::EvalPlan;
    use crate::work::order::read;

    fn evaluation(batches: usize) -> Work {
        let n = batches * 2;
        Work::Evaluation(EvalPlan { batches, batch_size: 1, block_size: 2, inputs: vec![0; n], targets: vec![0; n] })
    }

    /// Helpers' copies at step 7, `stale` as said (helper 1 first).
    fn copies(stale: &[bool]) -> Copies {
        let sync = SyncState {
            train: crate::train::TrainConfig::default(),
            dropout: 0.0,
            uniform_loss: 1.0,
            optimizer_steps: 7,
            tensors: vec![],
        };
        let any = stale.contains(&true);
        Copies {
            step: 7,
            stale: std::iter::once(false).chain(stale.iter().copied()).collect(),
            sync: any.then_some(sync),
        }
    }

    fn partial(first: usize, count: usize) -> Partial {
        Partial { first, count, loss: 0.0, exact: 0, grads: vec![] }
    }

    /// Where `orders` go and the partial sums each brings.
    fn sums(orders: &[Outgoing]) -> Vec<(usize, Data)> {
        orders.iter().map(|o| (o.to, o.data.clone())).collect()
    }

    fn units(order: &Outgoing) -> (usize, usize, bool) {
        match read::<Order>(&order.header, "an order").unwrap().assignment {
            Assignment::Units { first, end, plan, step, sync } => {
                assert_eq!(step, 7, "the run's step");
                assert!(plan.is_some() || sync.is_none(), "the state comes with a job's first order");
                (first, end, plan.is_some())
            }
            _ => panic!("units expected"),
        }
    }

    #[test]
    fn an_evaluation_goes_out_in_chunks_that_grow_and_each_helper_keeps_two_queued() {
        let (mut job, orders) = Job::new(1, evaluation(100), 2, copies(&[false, false]), Rng::new(0), 0.0);
        let sent: Vec<_> = orders.iter().map(|o| (o.to, units(o))).collect();
        assert_eq!(sent, [(1, (0, 1, true)), (2, (1, 2, true)), (1, (2, 3, false)), (2, (3, 4, false))]);
        assert_eq!(job.take_mine(), Some(4..5));
        job.timed(1, 10.0); // 10 ms a batch: 40 a chunk, but at most a sixth of the 95 left
        assert_eq!(job.take_mine(), Some(5..21));
        let next = job.replied(1);
        assert_eq!((next[0].to, units(&next[0])), (1, (21, 37, false)), "the helper that answered gets the next");
        assert!(!job.units_done());
    }

    fn step(shards: usize) -> Work {
        let plan = super::super::step_plan::StepPlan {
            shards,
            batch_size: shards,
            block_size: 1,
            inputs: vec![0; shards],
            targets: vec![0; shards],
            dropout_seed: None,
        };
        Work::Step(plan)
    }

    #[test]
    fn a_step_gives_each_worker_a_fixed_range_and_the_state_only_to_a_stale_copy() {
        let (mut job, orders) = Job::new(3, step(8), 2, copies(&[true, false]), Rng::new(0), 0.0);
        let sent: Vec<_> = orders.iter().map(|o| (o.to, units(o), o.data.clone())).collect();
        assert_eq!(sent, [(1, (2, 5, true), Data::Sync), (2, (5, 8, true), Data::None)]);
        assert_eq!(job.take_mine(), Some(0..2));
        assert_eq!(job.take_mine(), None);
        assert!(job.replied(1).is_empty() && !job.units_done());
        job.replied(2);
        assert!(job.units_done());
    }

    #[test]
    fn a_helper_lacking_one_partial_sum_gets_it_at_once_and_one_lacking_more_gets_the_root() {
        // Two workers: the helper lacks only the run's shards, sent as soon as they are summed.
        let (mut job, _) = Job::new(1, step(4), 1, copies(&[false]), Rng::new(0), 0.0);
        assert!(job.ready().is_empty());
        job.partials.push(partial(0, 2));
        assert_eq!(sums(&job.ready()), [(1, Data::Partials(vec![0]))]);
        assert!(job.ready().is_empty(), "each helper's sums go once");
        // Three: each helper lacks several, so each waits for the root.
        let (mut job, _) = Job::new(2, step(8), 2, copies(&[false, false]), Rng::new(0), 0.0);
        job.partials.extend([partial(0, 2), partial(2, 2), partial(4, 1), partial(5, 1), partial(6, 2)]);
        assert!(job.ready().is_empty() && job.root_orders().is_empty());
        job.root = Some(partial(0, 8));
        assert_eq!(sums(&job.root_orders()), [(1, Data::Root), (2, Data::Root)]);
        assert!(!job.holds(1) && !job.holds(2), "no update yet");
    }
}
