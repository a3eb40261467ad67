//! A step or an evaluation under way, shared between the run (worker 0) and its helpers: which
//! units each computes, which orders go out when, and what has come back. The run drives it
//! (`sharing.rs`); this file keeps the books.

use super::order::{write, Assignment, Data, Order, Outgoing, PartialSum, SyncState};
use super::partial::{worker_units, Partial};
use super::plan::Work;
use super::update::Update;
use crate::optim::shares;
use crate::rng::Rng;
use serde_json::value::RawValue;
use std::ops::Range;

/// About how long one chunk of an evaluation takes on the run's own worker.
const CHUNK_MS: f64 = 400.0;
/// Chunks each helper has queued during an evaluation, so that it never waits for the run (fewer
/// when the job has fewer units than that for every worker).
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
    /// An evaluation's batches, the edges to patch or the chains: a chunk at a time to whichever
    /// worker is free. A core slowed by other work then computes fewer batches, where equal shares
    /// would keep every other core waiting for it. Chunks grow to about [`CHUNK_MS`] of the run's
    /// work, and shrink towards the end.
    Pool { next: usize, units: usize, size: usize },
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
            Work::Evaluation(_) | Work::Edges(_) | Work::Llc(_) => Schedule::Pool { next: 0, units, size: 1 },
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
            // Never more queued than a worker's share, so the run has its share of a few units
            // (a live LLC record's two chains: one each).
            Schedule::Pool { .. } => {
                let queued = QUEUED.min(units / workers).max(1);
                (0..queued).flat_map(|_| 1..=helpers).filter_map(|h| job.chunk_order(h)).collect()
            }
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
            Work::Evaluation(_) | Work::Edges(_) | Work::Llc(_) => !self.stale[helper],
        }
    }
}

#[cfg(test)]
mod tests;
