//! The optimisers, each in its own file and listed once in [`OPTIMIZERS`]: AdamW for every
//! parameter (`adamw.rs`, nanoGPT's), Muon for the weight matrices inside the blocks with AdamW
//! for the rest (`muon.rs`, its Newton–Schulz in `newton_schulz.rs`), or SGD with momentum for
//! every parameter (`sgd.rs`); and clipping by the global gradient norm.
//!
//! To add an optimiser: write `its_name.rs` with a state implementing [`Optimizer`] and an
//! [`OptimizerKind`], and add the kind to [`OPTIMIZERS`].

mod adamw;
mod floor;
mod muon;
mod newton_schulz;
mod optimizer;
mod sgd;

pub use adamw::{AdamW, EPS as ADAM_EPS};
pub use muon::Muon;
pub use newton_schulz::{orthogonalize, Coefficients};
pub use optimizer::{Hyper, Optimizer, OptimizerKind, ParamRate, Piece, Rates, Saved};
pub use sgd::Sgd;

use crate::fields::Reader;

/// Every optimiser, in the order the form lists them; the first is the default.
pub static OPTIMIZERS: &[&OptimizerKind] = &[&adamw::KIND, &muon::KIND, &sgd::KIND];

/// An optimiser as the page's form and the CLI offer it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct OptimizerInfo {
    pub name: &'static str,
    pub title: &'static str,
    /// Its own settings.
    pub fields: Vec<crate::fields::Field>,
}

/// Every optimiser, in menu order.
pub fn optimizers() -> Vec<OptimizerInfo> {
    OPTIMIZERS.iter().map(|k| OptimizerInfo { name: k.name, title: k.title, fields: k.fields.to_vec() }).collect()
}

/// The optimiser called `name`.
pub fn optimizer_named(name: &str) -> Option<&'static OptimizerKind> {
    OPTIMIZERS.iter().copied().find(|k| k.name == name)
}

/// The L2 norm of all gradients together (a flat buffer of them).
pub fn global_norm(grads: &[f32]) -> f32 {
    let square = |x: f32| (x as f64) * (x as f64);
    crate::ops::fold8(grads, 0.0, |s, x| s + square(x), |a, b| a + b).sqrt() as f32
}

/// What clipping gradients of global norm `norm` to `max_norm` multiplies them by, as PyTorch's
/// `clip_grad_norm_` (1 when they are within it).
pub fn clip_coefficient(norm: f32, max_norm: f32) -> f32 {
    (max_norm / (norm + 1e-6)).min(1.0)
}

/// Scales all gradients down so their global norm is at most `max_norm`, as PyTorch's
/// `clip_grad_norm_`; returns the norm before clipping.
pub fn clip_grad_norm(grads: &mut [f32], max_norm: f32) -> f32 {
    let norm = global_norm(grads);
    let coef = clip_coefficient(norm, max_norm);
    if coef < 1.0 {
        grads.iter_mut().for_each(|g| *g *= coef);
    }
    norm
}

/// Computes each of `pieces` not done yet, with `kind`'s [`OptimizerKind::compute`] by its own
/// settings `own`, on up to `threads` threads shared as [`shares`] says: the same bits whatever
/// the count.
pub fn complete(kind: &OptimizerKind, own: Reader, pieces: Vec<&mut Piece>, threads: usize) {
    let mut missing: Vec<&mut Piece> = pieces.into_iter().filter(|p| !p.done).collect();
    let threads = threads.clamp(1, missing.len().max(1));
    if threads == 1 {
        missing.iter_mut().for_each(|p| (kind.compute)(p, own));
        return;
    }
    let plan = shares(&missing.iter().map(|p| p.cost).collect::<Vec<_>>(), threads);
    let mut slots: Vec<Option<&mut Piece>> = missing.into_iter().map(Some).collect();
    let groups: Vec<Vec<&mut Piece>> =
        plan.iter().map(|share| share.iter().filter_map(|&k| slots[k].take()).collect()).collect();
    std::thread::scope(|scope| {
        for group in groups {
            scope.spawn(move || group.into_iter().for_each(|p| (kind.compute)(p, own)));
        }
    });
}

/// Which pieces (by their `costs`) each of `workers` workers computes: the costliest first, each
/// to the worker with the least work so far (the first of equals). Fixed by the costs and the
/// count; and any worker gives a piece the same bits, so the result never depends on either.
pub fn shares(costs: &[usize], workers: usize) -> Vec<Vec<usize>> {
    let workers = workers.clamp(1, costs.len().max(1));
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(costs[k]), k));
    let (mut out, mut load) = (vec![vec![]; workers], vec![0usize; workers]);
    for k in order {
        let w = (0..workers).min_by_key(|&w| (load[w], w)).expect("at least one worker");
        load[w] += costs[k];
        out[w].push(k);
    }
    out.iter_mut().for_each(|share| share.sort_unstable());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(rows: usize, cols: usize, seed: u64) -> Piece {
        let mut rng = crate::rng::Rng::new(seed);
        let values = (0..rows * cols).map(|_| rng.normal()).collect();
        Piece { rows, cols, values, cost: newton_schulz::cost(rows, cols, 5), done: false }
    }

    #[test]
    fn shares_balance_the_work_and_cover_every_piece_once() {
        // nano-cpu's four matrices a block, twice: c_attn, attn.c_proj, c_fc, mlp.c_proj.
        let block = [(384, 128), (128, 128), (512, 128), (128, 512)];
        let costs: Vec<usize> = block.iter().chain(&block).map(|&(r, c)| newton_schulz::cost(r, c, 5)).collect();
        let two = shares(&costs, 2);
        // A block each, 296M multiply-adds in five steps with the transposes: each worker one tall
        // c_fc and one wide mlp.c_proj. k mod 2 would give one worker 340M of the 592M.
        assert_eq!(two, [vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        let mut all: Vec<usize> = shares(&costs, 3).concat();
        all.sort_unstable();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
        assert_eq!(shares(&costs[..1], 4), [vec![0]], "no more workers than pieces");
    }

    #[test]
    fn any_thread_count_gives_the_same_bits() {
        let kind = optimizer_named("muon").unwrap();
        let values = crate::fields::Values::new();
        let own = Reader { fields: kind.fields, values: &values };
        let pieces: Vec<Piece> = (0..5).map(|k| piece(6 + k, 10, k as u64)).collect();
        let done = |threads| {
            let mut p = pieces.clone();
            complete(kind, own, p.iter_mut().collect(), threads);
            p
        };
        let one = done(1);
        assert!(one.iter().all(|p| p.done));
        assert_eq!(done(2), one);
        assert_eq!(done(3), one);
    }
}
