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
        train: crate::config::TrainConfig::default(),
        dropout: 0.0,
        uniform_loss: 1.0,
        optimizer_steps: 7,
        tensors: vec![],
    };
    let any = stale.contains(&true);
    Copies { step: 7, stale: std::iter::once(false).chain(stale.iter().copied()).collect(), sync: any.then_some(sync) }
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
