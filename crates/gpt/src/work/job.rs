//! A step or an evaluation under way, shared between the run (worker 0) and its helpers: which
//! units each computes, which orders go out when, and what has come back. The run drives it
//! (`sharing.rs`); this file keeps the books.

use super::order::{write, Assignment, Data, Order, Outgoing};
use super::partial::{worker_units, Partial};
use super::plan::Work;
use crate::fields::Values;
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
    /// What has been computed, here and by helpers.
    pub partials: Vec<Partial>,
    schedule: Schedule,
    /// Whether each helper (1 and up) has been sent this job's plan and weights.
    primed: Vec<bool>,
    /// Orders out whose replies have not come back.
    pub outstanding: usize,
    /// The training stream after a step's batch, which the run takes when the step lands.
    pub rng_after: Rng,
    pub started_ms: f64,
    /// A step's update, once its shards are all in.
    pub update: Option<Update>,
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
    /// The pieces the run computes itself; helpers have the rest.
    pub mine: Vec<usize>,
}

impl Job {
    /// Job `id` for `work`, shared with `helpers`, and the orders to send at once.
    pub fn new(id: u64, work: Work, helpers: usize, rng_after: Rng, started_ms: f64) -> (Job, Vec<Outgoing>) {
        let plan = RawValue::from_string(work.to_json()).expect("a plan is valid JSON");
        let units = work.units();
        let workers = (helpers + 1).min(units.max(1));
        let schedule = match work {
            Work::Step(_) => Schedule::Fixed { mine: Some(worker_units(units, workers, 0)) },
            Work::Evaluation(_) => Schedule::Pool { next: 0, units, size: 1 },
        };
        let primed = vec![false; helpers + 1];
        let mut job = Job {
            id,
            work,
            plan,
            helpers,
            partials: vec![],
            schedule,
            primed,
            outstanding: 0,
            rng_after,
            started_ms,
            update: None,
        };
        let orders = match job.schedule {
            Schedule::Fixed { .. } => {
                (1..workers).map(|h| job.units_order(h, worker_units(units, workers, h))).collect()
            }
            Schedule::Pool { .. } => (0..QUEUED).flat_map(|_| 1..=helpers).filter_map(|h| job.chunk_order(h)).collect(),
        };
        (job, orders)
    }

    /// An order for `helper` to compute units `range`: with the plan and weights, the first time.
    fn units_order(&mut self, helper: usize, range: Range<usize>) -> Outgoing {
        let first = !std::mem::replace(&mut self.primed[helper], true);
        self.outstanding += 1;
        let plan = first.then(|| self.plan.clone());
        let assignment = Assignment::Units { first: range.start, end: range.end, plan, weights: first };
        let header = write(&Order { job: self.id, helper, assignment });
        Outgoing { to: helper, header, data: if first { Data::Weights } else { Data::None } }
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

    /// A reply from `helper` is in: one order fewer out, and for a pool the helper's next chunk.
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

    /// Shares out `update`'s pieces by their cost (the run keeps the first share) and keeps it:
    /// the orders for the helpers' shares, each piece of `optimizer`'s.
    pub fn share_pieces(&mut self, mut update: Update, optimizer: &str, settings: &Values) -> Vec<Outgoing> {
        let costs: Vec<usize> = update.pieces.iter().map(|p| p.cost).collect();
        let mut split = shares(&costs, self.helpers + 1).into_iter();
        update.mine = split.next().unwrap_or_default();
        let orders: Vec<Outgoing> = split
            .enumerate()
            .map(|(i, share)| {
                let pieces = share.iter().map(|&k| [k, update.pieces[k].rows, update.pieces[k].cols]).collect();
                let assignment = Assignment::Pieces { optimizer: optimizer.into(), settings: settings.clone(), pieces };
                let header = write(&Order { job: self.id, helper: i + 1, assignment });
                Outgoing { to: i + 1, header, data: Data::Pieces(share) }
            })
            .collect();
        self.outstanding += orders.len();
        self.update = Some(update);
        orders
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

    fn units(order: &Outgoing) -> (usize, usize, bool) {
        match read::<Order>(&order.header, "an order").unwrap().assignment {
            Assignment::Units { first, end, plan, weights } => {
                assert_eq!(plan.is_some(), weights, "the plan and the weights travel together");
                (first, end, weights)
            }
            Assignment::Pieces { .. } => panic!("units expected"),
        }
    }

    #[test]
    fn an_evaluation_goes_out_in_chunks_that_grow_and_each_helper_keeps_two_queued() {
        let (mut job, orders) = Job::new(1, evaluation(100), 2, Rng::new(0), 0.0);
        let sent: Vec<_> = orders.iter().map(|o| (o.to, units(o))).collect();
        assert_eq!(sent, [(1, (0, 1, true)), (2, (1, 2, true)), (1, (2, 3, false)), (2, (3, 4, false))]);
        assert_eq!(job.take_mine(), Some(4..5));
        job.timed(1, 10.0); // 10 ms a batch: 40 a chunk, but at most a sixth of the 95 left
        assert_eq!(job.take_mine(), Some(5..21));
        let next = job.replied(1);
        assert_eq!((next[0].to, units(&next[0])), (1, (21, 37, false)), "the helper that answered gets the next");
        assert!(!job.units_done());
    }

    #[test]
    fn a_step_gives_each_worker_a_fixed_range_and_the_weights_once() {
        let plan = super::super::step_plan::StepPlan {
            shards: 8,
            batch_size: 8,
            block_size: 1,
            inputs: vec![0; 8],
            targets: vec![0; 8],
            dropout_seed: None,
        };
        let (mut job, orders) = Job::new(3, Work::Step(plan), 2, Rng::new(0), 0.0);
        let sent: Vec<_> = orders.iter().map(|o| (o.to, units(o), o.data.clone())).collect();
        assert_eq!(sent, [(1, (2, 5, true), Data::Weights), (2, (5, 8, true), Data::Weights)]);
        assert_eq!(job.take_mine(), Some(0..2));
        assert_eq!(job.take_mine(), None);
        assert!(job.replied(1).is_empty() && !job.units_done());
        job.replied(2);
        assert!(job.units_done());
    }
}
