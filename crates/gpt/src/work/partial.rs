//! Partial sums of a step's gradients, and the canonical tree that adds them up, so that the
//! result never depends on how many workers computed them.
//!
//! A batch splits into a fixed number of shards, set by the batch size and never by the worker
//! count. Each shard's gradient is computed alone, then the gradients are summed in one canonical
//! order: a balanced binary tree over the shards. A worker that computes a contiguous range of
//! shards sums every whole aligned subtree of its range itself, exactly as the tree would, and
//! hands over only those partial sums; [`combine`] finishes the tree. So one, two, three or more
//! workers (threads natively, Web Workers in the page) produce bit-identical gradients, and with
//! a power-of-two number of workers each hands over a single buffer. An evaluation's batches are
//! partials too, each of one batch, with no gradients.

use super::order::PartialSum;
use crate::error::{Error, Result};
use crate::words::runs::bug;
use crate::workspace::Workspace;
use std::ops::Range;

/// The contiguous units worker `k` of `workers` computes; together they cover every unit once.
pub fn worker_units(units: usize, workers: usize, k: usize) -> Range<usize> {
    k * units / workers..(k + 1) * units / workers
}

/// `partials` in unit order, where each of the job's `units` units is one of them (an evaluation's
/// batches, the edges patched); else why not, naming what the units are.
pub(crate) fn one_per_unit(mut partials: Vec<Partial>, units: usize, what: &str) -> Result<Vec<Partial>> {
    partials.sort_by_key(|p| p.first);
    let tiles = partials.iter().enumerate().all(|(i, p)| p.first == i && p.count == 1);
    if partials.len() != units || !tiles {
        return Err(Error::Data(bug(format!("the results do not cover the {units} {what} once each"))));
    }
    Ok(partials)
}

/// The weighted sum of the losses and gradients of shards `first..first + count`: an aligned
/// subtree of the canonical tree (`count` a power of two dividing `first`).
#[derive(Clone, Debug, PartialEq)]
pub struct Partial {
    pub first: usize,
    pub count: usize,
    /// The loss of these shards, weighted by their share of the batch's counted targets (an
    /// edge's score; a chain's MALA acceptance).
    pub loss: f64,
    /// An evaluation batch's rows the model got exactly right (0 for a step; a chain's draws).
    pub exact: usize,
    /// Every parameter's gradient, flat (a chain's losses).
    pub grads: Vec<f32>,
}

impl Partial {
    /// Its figures as they travel, its gradients apart.
    pub(crate) fn figures(&self) -> PartialSum {
        PartialSum { first: self.first, count: self.count, loss: self.loss, exact: self.exact }
    }

    /// Whether `self` and `right` are the two children of one node, `self` on the left.
    fn is_left_sibling_of(&self, right: &Partial) -> bool {
        self.count == right.count && self.first + self.count == right.first && self.first.is_multiple_of(2 * self.count)
    }

    /// The parent of `self` (left) and `right`; the sum is always left + right.
    fn merge(mut self, right: Partial, ws: &Workspace) -> Partial {
        self.grads.iter_mut().zip(&right.grads).for_each(|(a, b)| *a += b);
        self.loss += right.loss;
        self.exact += right.exact;
        self.count *= 2;
        ws.recycle(right.grads);
        self
    }
}

/// Pushes `next` onto `stack`, merging it with every finished left sibling below it.
pub(crate) fn push_merging(stack: &mut Vec<Partial>, mut next: Partial, ws: &Workspace) {
    while stack.last().is_some_and(|left| left.is_left_sibling_of(&next)) {
        let left = stack.pop().expect("checked above");
        next = left.merge(next, ws);
    }
    stack.push(next);
}

/// The root of the tree over `shards` shards from partial sums that cover them all, each once,
/// in any order; or what is missing or overlapping.
pub fn combine(mut partials: Vec<Partial>, shards: usize, ws: &Workspace) -> Result<Partial> {
    partials.sort_by_key(|p| p.first);
    let mut stack = Vec::new();
    let mut next_shard = 0;
    for p in partials {
        let aligned = p.count.is_power_of_two() && p.first.is_multiple_of(p.count);
        if p.first != next_shard || !aligned || p.first + p.count > shards {
            return Err(Error::Data(bug(format!(
                "partial gradients do not tile the {shards} shards: got shards {}..{} after {next_shard}",
                p.first,
                p.first + p.count
            ))));
        }
        next_shard += p.count;
        push_merging(&mut stack, p, ws);
    }
    match stack.pop() {
        Some(root) if stack.is_empty() && root.count == shards => Ok(root),
        _ => Err(Error::Data(bug(format!("partial gradients cover {next_shard} of the {shards} shards")))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(first: usize, value: f32) -> Partial {
        Partial { first, count: 1, loss: value as f64, exact: 0, grads: vec![value] }
    }

    #[test]
    fn any_split_into_workers_sums_in_the_same_order() {
        let ws = Workspace::default();
        // Values whose float sum depends on the order of addition.
        let values = [1e8f32, 1.0, -1e8, 1.0, 3.0, 1e-3, 7.5e7, -7.5e7];
        let by_workers = |workers: usize| {
            let mut partials = Vec::new();
            for k in 0..workers {
                let mut stack = Vec::new();
                for s in worker_units(8, workers, k) {
                    push_merging(&mut stack, leaf(s, values[s]), &ws);
                }
                partials.extend(stack);
            }
            combine(partials, 8, &ws).unwrap().grads[0].to_bits()
        };
        let one = by_workers(1);
        assert!((2..=8).all(|k| by_workers(k) == one));
        let tree =
            ((values[0] + values[1]) + (values[2] + values[3])) + ((values[4] + values[5]) + (values[6] + values[7]));
        assert_eq!(one, tree.to_bits());
    }

    #[test]
    fn partials_that_do_not_tile_the_shards_are_refused() {
        let ws = Workspace::default();
        assert!(combine(vec![leaf(0, 1.0), leaf(2, 1.0)], 4, &ws).unwrap_err().to_string().contains("tile"));
        assert!(combine(vec![leaf(0, 1.0), leaf(1, 1.0)], 4, &ws).unwrap_err().to_string().contains("cover 2"));
        assert!(combine(vec![leaf(0, 1.0), leaf(0, 1.0)], 2, &ws).is_err());
    }
}
