//! One SGLD chain (devinterp's `SGMCMC.sgld` with `sample_single_chain`): at each step a batch
//! drawn by the chain's own seed, its loss recorded once burn-in is over, then the Langevin step;
//! and, as devinterp's `MalaAcceptanceRate` does, the probability a Metropolis-adjusted sampler
//! would have accepted each recorded step (near 1 says the step could be bigger; near 0, that the
//! chain is not sampling the posterior it means to).

use super::{Landscape, LlcConfig};
use crate::rng::Rng;
use serde::Serialize;
use std::ops::Range;

/// A chain's losses at its draws, and its mean MALA acceptance over them.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub trace: Vec<f32>,
    pub acceptance: f64,
}

/// One step of a chain, kept to check against another implementation: step `at` (counting from
/// 0), the weights it started from, the batch it drew, its noise (one draw for each weight that
/// moves, in order) and the weights it reached; and the batch the next step drew, on which the
/// step's MALA acceptance reads the weights reached.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KeptStep {
    pub at: usize,
    pub before: Vec<f32>,
    pub batch: usize,
    pub noise: Vec<f32>,
    pub after: Vec<f32>,
    pub next_batch: usize,
}

/// The seed of chain `chain`: the estimate's seed mixed with the chain's number, so each chain is
/// the same whichever worker runs it and in whatever order.
fn chain_seed(seed: u64, chain: usize) -> u64 {
    seed ^ (chain as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A point of the chain: its weights, the potential U = nβ L + γ/2 |w − w*|² there, and U's
/// gradient (the drift), over the weights that move.
struct Point {
    w: Vec<f32>,
    potential: f64,
    drift: Vec<f32>,
}

/// Chain `chain` from `w_star`: the loss of each draw (at the weights its step starts from), or
/// the losses up to the first that is not finite, which ends it; the step `keep` names kept in
/// it, if given.
pub fn chain(
    landscape: &mut dyn Landscape,
    w_star: &[f32],
    restrict: Option<&[bool]>,
    config: &LlcConfig,
    (nbeta, chain): (f32, usize),
    mut keep: Option<&mut KeptStep>,
) -> Chain {
    let mut rng = Rng::new(chain_seed(config.seed, chain));
    landscape.moving(restrict);
    let runs = runs(restrict, w_star.len());
    let start = || Point { w: w_star.to_vec(), potential: 0.0, drift: vec![0.0; w_star.len()] };
    // The point the step starts from, and the one before it (its buffers reused for the next).
    // Weights that do not move stay w* in both, and their drift is never read.
    let (mut at, mut before) = (start(), start());
    let (mut trace, mut accepted) = (Vec::with_capacity(config.draws), 0.0);
    let (half, root) = (config.epsilon / 2.0, config.epsilon.sqrt());
    for step in 0..config.burn_in + config.draws {
        let batch = rng.below(landscape.batches());
        let loss = landscape.loss_grad(&at.w, batch, &mut at.drift);
        if !loss.is_finite() {
            trace.push(loss);
            break;
        }
        let mut distance = 0.0;
        for run in &runs {
            let (drift, w, w0) = (&mut at.drift[run.clone()], &at.w[run.clone()], &w_star[run.clone()]);
            for (d, (&w, &w0)) in drift.iter_mut().zip(w.iter().zip(w0)) {
                *d = nbeta * *d + config.gamma * (w - w0);
                let gap = f64::from(w - w0);
                distance += gap * gap; // not powi, a call in wasm
            }
        }
        at.potential = f64::from(nbeta) * f64::from(loss) + f64::from(config.gamma) / 2.0 * distance;
        if step >= config.burn_in {
            trace.push(loss);
            if step > config.burn_in {
                accepted += acceptance(&before, &at, &runs, config.epsilon);
            }
        }
        if let Some(kept) = keep.as_deref_mut().filter(|k| step == k.at + 1) {
            kept.next_batch = batch;
        }
        let mut kept = keep.as_deref_mut().filter(|k| step == k.at);
        if let Some(kept) = kept.as_deref_mut() {
            kept.before = at.w.clone();
        }
        for run in &runs {
            let (next, w, drift) = (&mut before.w[run.clone()], &at.w[run.clone()], &at.drift[run.clone()]);
            for (next, (&w, &d)) in next.iter_mut().zip(w.iter().zip(drift)) {
                let noise = rng.noise();
                kept.iter_mut().for_each(|k| k.noise.push(noise));
                *next = w - half * d + root * noise; // the drift's half step, then the noise, as devinterp adds them
            }
        }
        std::mem::swap(&mut at, &mut before);
        if let Some(kept) = kept {
            (kept.batch, kept.after) = (batch, at.w.clone());
        }
    }
    let acceptance = accepted / trace.len().saturating_sub(1).max(1) as f64;
    Chain { trace, acceptance }
}

/// The Metropolis-adjusted Langevin acceptance of the step from `from` to `to` with step ε:
/// min(1, q(to → from) / q(from → to) · exp(U(from) − U(to))), q Gaussian about each point's
/// drift step, over the weights that move (the others add nothing).
fn acceptance(from: &Point, to: &Point, runs: &[Range<usize>], epsilon: f32) -> f64 {
    let half = f64::from(epsilon) / 2.0;
    let (mut back, mut forth) = (0.0, 0.0);
    for run in runs {
        let (w0, w1) = (&from.w[run.clone()], &to.w[run.clone()]);
        let (d0, d1) = (&from.drift[run.clone()], &to.drift[run.clone()]);
        for ((&w0, &w1), (&d0, &d1)) in w0.iter().zip(w1).zip(d0.iter().zip(d1)) {
            let gap = f64::from(w1) - f64::from(w0);
            let (to, from) = (gap + half * f64::from(d0), -gap + half * f64::from(d1));
            forth += to * to;
            back += from * from;
        }
    }
    let log = (forth - back) / (2.0 * f64::from(epsilon)) + from.potential - to.potential;
    log.exp().min(1.0)
}

/// The runs of weights that move: all of them, or each run `restrict` marks.
fn runs(restrict: Option<&[bool]>, dim: usize) -> Vec<Range<usize>> {
    let Some(restrict) = restrict else { return std::iter::once(0..dim).collect() };
    let mut at = 0;
    let runs = restrict.chunk_by(|a, b| a == b).map(|run| {
        at += run.len();
        (at - run.len()..at, run[0])
    });
    runs.filter_map(|(run, moves)| moves.then_some(run)).collect()
}
