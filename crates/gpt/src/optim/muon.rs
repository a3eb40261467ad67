//! Muon (Keller Jordan 2024), as PyTorch's `torch.optim.Muon` computes it: for the weight
//! matrices inside the blocks, Nesterov momentum whose update is orthogonalised by Newton–Schulz
//! steps (`newton_schulz.rs`: five of Keller Jordan's by default, or Polar Express's), so that
//! every direction of a matrix moves by about as much. Embeddings, the output head, biases and norm gains stay with AdamW, as Muon's authors
//! prescribe.
//!
//! Its step's pieces are the matrices' updates: [`Muon::begin`] makes them (changing nothing),
//! any worker orthogonalises them, and [`Muon::finish`] applies decoupled weight decay and the
//! scaled updates, and keeps the momentum.

use super::adamw::AdamW;
use super::floor::{floored, MOMENT_FLOOR};
use super::newton_schulz::{cost, orthogonalize, Coefficients};
use super::optimizer::{Hyper, Optimizer, OptimizerKind, ParamRate, Piece, Rates, Saved};
use crate::error::{FieldError, Result};
use crate::fields::Field;
use crate::params::Params;
use crate::words::settings as words;
use ndarray::{ArrayD, ArrayView2};

/// Muon as the settings name it, with its own rate and momentum.
pub static KIND: OptimizerKind = OptimizerKind {
    name: "muon",
    title: "Muon",
    fields: &[
        Field::number(
            "muon_lr",
            "Muon learning rate",
            "Muon's peak rate for the block matrices; it follows the learning rate's warmup and decay",
            (0.0, 10.0),
            false,
            0.02,
        ),
        Field::number("muon_momentum", "Muon momentum", "Muon's Nesterov momentum", (0.0, 1.0), true, 0.95),
        Field::choice(
            "muon_ns_coefficients",
            "Newton–Schulz coefficients",
            "The quintic of each orthogonalising step: Keller Jordan's at every step (PyTorch's), or Polar \
                Express's, one per step, which lift the small singular values faster",
            &[("jordan", "Keller Jordan's"), ("polar_express", "Polar Express")],
            "jordan",
        ),
        Field::count(
            "muon_ns_steps",
            "Newton–Schulz steps",
            "Orthogonalising steps for each matrix's update, each three matrix products",
            (1, 10),
            5,
        ),
    ],
    errors: decay_errors,
    create: |params, hyper| Box::new(Muon::new(params, hyper)),
    compute: |piece, own| {
        let update = ArrayView2::from_shape((piece.rows, piece.cols), &piece.values).expect("a piece's shape fits it");
        let coefficients = Coefficients::named(own.choice("muon_ns_coefficients"));
        piece.values = orthogonalize(update, coefficients, own.count("muon_ns_steps")).into_raw_vec_and_offset().0;
        piece.done = true;
    },
};

/// Each step shrinks the matrices by the Muon rate times the weight decay: from 1 on, it would
/// zero or flip them.
fn decay_errors(hyper: &Hyper) -> Vec<FieldError> {
    let product = hyper.own.number("muon_lr") as f32 * hyper.weight_decay;
    (product >= 1.0).then(|| FieldError::new("train.muon_lr", words::muon_decay(product))).into_iter().collect()
}

/// Muon's state: AdamW for the parameters it leaves alone, which matrices it trains, and a
/// momentum buffer for each.
#[derive(Clone, Debug)]
pub struct Muon {
    pub adamw: AdamW,
    pub lr: f32,
    pub momentum: f32,
    /// Newton–Schulz steps, which set what a matrix's update costs to share.
    ns_steps: usize,
    pub weight_decay: f32,
    names: Vec<String>,
    /// Where each parameter starts in the flat gradients.
    offsets: Vec<usize>,
    /// The parameters it trains, by index (ascending): the 2-D weights inside the blocks.
    pub params: Vec<usize>,
    pub buffers: Vec<ArrayD<f32>>,
}

/// PyTorch's `lerp`, branch and all: `start + w (end - start)`, from the nearer end.
fn lerp(start: f32, end: f32, w: f32) -> f32 {
    if w < 0.5 {
        start + w * (end - start)
    } else {
        end - (end - start) * (1.0 - w)
    }
}

impl Muon {
    /// Muon for the weight matrices inside the blocks (`transformer.h.*`, 2-D) of `params`, with
    /// zeroed momentum, and AdamW for the rest.
    pub fn new(params: &Params, hyper: &Hyper) -> Muon {
        let (names, values) = (&params.names, &params.values);
        let trained: Vec<usize> =
            (0..names.len()).filter(|&i| names[i].starts_with("transformer.h.") && values[i].ndim() == 2).collect();
        let offsets = values.iter().scan(0, |at, p| Some(std::mem::replace(at, *at + p.len()))).collect();
        Muon {
            adamw: AdamW::new(params, hyper.beta1, hyper.beta2, hyper.weight_decay),
            lr: hyper.own.number("muon_lr") as f32,
            momentum: hyper.own.number("muon_momentum") as f32,
            ns_steps: hyper.own.count("muon_ns_steps"),
            weight_decay: hyper.weight_decay,
            names: names.clone(),
            offsets,
            buffers: trained.iter().map(|&i| ArrayD::zeros(values[i].raw_dim())).collect(),
            params: trained,
        }
    }

    /// Matrix `k`'s gradient, from the flat `grads`.
    fn grad<'g>(&self, grads: &'g [f32], k: usize) -> &'g [f32] {
        let at = self.offsets[self.params[k]];
        &grads[at..at + self.buffers[k].len()]
    }

    /// Muon's rate at `rates` along the schedule, and matrix `k`'s: times √max(1, rows / columns),
    /// as PyTorch's "original" adjustment (a wide matrix's update has larger entries than a tall
    /// one's).
    fn rates_of(&self, rates: Rates, k: usize) -> (f32, f32) {
        let base = self.lr * rates.scale;
        let shape = self.buffers[k].shape();
        (base, base * (1f32).max(shape[0] as f32 / shape[1] as f32).sqrt())
    }

    /// Matrix `k`'s momentum after taking in its gradient `g`.
    fn next_momentum<'a>(&'a self, k: usize, g: &'a [f32]) -> impl Iterator<Item = f32> + 'a {
        let mu = self.momentum;
        let b = self.buffers[k].as_slice().expect("standard layout");
        b.iter().zip(g).map(move |(&b, &g)| floored(lerp(b, g, 1.0 - mu), MOMENT_FLOOR))
    }
}

impl Optimizer for Muon {
    fn kind(&self) -> &'static OptimizerKind {
        &KIND
    }

    /// Each matrix's Nesterov update, which Newton–Schulz orthogonalises: the gradient pulled
    /// towards the momentum it would leave. Nothing is kept until [`Muon::finish`].
    fn begin(&self, _params: &[ArrayD<f32>], grads: &[f32]) -> Vec<Piece> {
        (0..self.params.len())
            .map(|k| {
                let g = self.grad(grads, k);
                let values = g.iter().zip(self.next_momentum(k, g)).map(|(&g, b)| lerp(g, b, self.momentum)).collect();
                let (rows, cols) = (self.buffers[k].shape()[0], self.buffers[k].shape()[1]);
                Piece { rows, cols, values, cost: cost(rows, cols, self.ns_steps), done: false }
            })
            .collect()
    }

    /// AdamW for the rest; then every matrix shrinks by `lr × weight_decay` of itself and moves by
    /// its orthogonalised update at its own rate ([`Muon::rates_of`]), `lr` being `muon_lr` along
    /// the schedule; and the momentum is kept.
    fn finish(&mut self, params: &mut [ArrayD<f32>], grads: &[f32], rates: Rates, pieces: Vec<Piece>) {
        self.adamw.step_except(params, grads, rates.lr, &self.params);
        for (k, piece) in pieces.into_iter().enumerate() {
            assert!(piece.done, "every piece is orthogonalised before the step is applied");
            let next: Vec<f32> = self.next_momentum(k, self.grad(grads, k)).collect();
            self.buffers[k].as_slice_mut().expect("standard layout").copy_from_slice(&next);
            let (lr, scale) = self.rates_of(rates, k);
            let decay = 1.0 - lr * self.weight_decay;
            let p = params[self.params[k]].as_slice_mut().expect("standard layout");
            p.iter_mut().zip(&piece.values).for_each(|(p, &o)| {
                *p *= decay;
                *p -= scale * o;
            });
        }
    }

    fn state(&self) -> Vec<(String, &ArrayD<f32>)> {
        let mut state = self.adamw.moments();
        state.extend(self.params.iter().zip(&self.buffers).map(|(&i, b)| (format!("muon.{}", self.names[i]), b)));
        state
    }

    /// AdamW's moments must be there; a matrix's momentum the file lacks (a run saved before Muon
    /// trained it, or by another tool) starts from zero.
    fn restore(&mut self, saved: Saved) -> Result<()> {
        self.adamw.restore_moments(saved)?;
        for (&i, buffer) in self.params.iter().zip(&mut self.buffers) {
            if let Some(momentum) = saved(&format!("muon.{}", self.names[i]), buffer.shape())? {
                *buffer = momentum;
            }
        }
        Ok(())
    }

    fn steps(&self) -> u64 {
        self.adamw.t
    }

    fn set_steps(&mut self, steps: u64) {
        self.adamw.t = steps;
    }

    fn retune(&mut self, hyper: &Hyper) {
        self.adamw.retune(hyper);
        self.lr = hyper.own.number("muon_lr") as f32;
        (self.momentum, self.weight_decay) = (hyper.own.number("muon_momentum") as f32, hyper.weight_decay);
    }

    fn param_rates(&self, rates: Rates) -> Vec<ParamRate> {
        let mut all = self.adamw.param_rates(rates);
        for k in 0..self.params.len() {
            let (base, lr) = self.rates_of(rates, k);
            all[self.params[k]] = ParamRate { optimizer: KIND.name, base, lr };
        }
        all
    }

    fn boxed_clone(&self) -> Box<dyn Optimizer> {
        Box::new(self.clone())
    }
}
