//! Muon (Keller Jordan 2024), as PyTorch's `torch.optim.Muon` computes it: for the weight
//! matrices inside the blocks, Nesterov momentum whose update is orthogonalised by five
//! Newton–Schulz steps, so that every direction of a matrix moves by about as much. Embeddings,
//! the output head, biases and norm gains stay with AdamW, as Muon's authors prescribe.
//!
//! A step has three parts, so that the costly middle one can be shared among threads and workers:
//! [`Muon::begin`] (momentum, per matrix, not yet kept), [`orthogonalize`] (Newton–Schulz: a pure
//! function of one matrix, which any worker computes with the same bits), and [`Muon::apply`]
//! (decoupled weight decay, the scaled update, and the momentum kept).

use crate::ops::gemm::{gemm, gemm_symmetric};
use ndarray::{Array2, ArrayD, ArrayView2};

/// Newton–Schulz's quintic coefficients, Keller Jordan's, and how many steps (PyTorch's defaults).
pub const NS_COEFFICIENTS: (f32, f32, f32) = (3.4445, -4.775, 2.0315);
pub const NS_STEPS: usize = 5;
/// Keeps a zero update from dividing by zero.
const EPS: f32 = 1e-7;

/// Muon's state: which parameters it trains, and a momentum buffer for each.
#[derive(Clone, Debug)]
pub struct Muon {
    pub momentum: f32,
    pub weight_decay: f32,
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
    /// Muon for the weight matrices inside the blocks (`transformer.h.*`, 2-D) of these
    /// parameters, with zeroed momentum.
    pub fn new(names: &[String], values: &[ArrayD<f32>], momentum: f32, weight_decay: f32) -> Muon {
        let params: Vec<usize> =
            (0..names.len()).filter(|&i| names[i].starts_with("transformer.h.") && values[i].ndim() == 2).collect();
        let buffers = params.iter().map(|&i| ArrayD::zeros(values[i].raw_dim())).collect();
        Muon { momentum, weight_decay, params, buffers }
    }

    /// The first part of a step: each matrix's momentum takes in its gradient (read from the flat
    /// `grads` at `offsets`), and its Nesterov update, which Newton–Schulz orthogonalises. Nothing
    /// is kept until [`Muon::apply`], so a step given up leaves the state as it was.
    pub fn begin(&self, grads: &[f32], offsets: &[usize]) -> MuonStep {
        let mu = self.momentum;
        let (buffers, updates) = self
            .params
            .iter()
            .zip(&self.buffers)
            .map(|(&i, buffer)| {
                let shape = (buffer.shape()[0], buffer.shape()[1]);
                let g = &grads[offsets[i]..offsets[i] + buffer.len()];
                let mut next = buffer.clone();
                let b = next.as_slice_mut().expect("standard layout");
                b.iter_mut().zip(g).for_each(|(b, &g)| *b = lerp(*b, g, 1.0 - mu));
                let update = g.iter().zip(b.iter()).map(|(&g, &b)| lerp(g, b, mu)).collect();
                (next, Array2::from_shape_vec(shape, update).expect("same size"))
            })
            .unzip();
        let orthogonal = vec![None; self.params.len()];
        MuonStep { buffers, updates, orthogonal }
    }

    /// The last part: every matrix shrinks by `lr × weight_decay` of itself, then moves by its
    /// orthogonalised update at `lr` times √max(1, rows / columns), as PyTorch's "original"
    /// adjustment (a wide matrix's update has larger entries than a tall one's); the momentum is
    /// kept. Every matrix must be orthogonalised by then ([`MuonStep::complete`]).
    pub fn apply(&mut self, values: &mut [ArrayD<f32>], step: MuonStep, lr: f32) {
        let decay = 1.0 - lr * self.weight_decay;
        self.buffers = step.buffers;
        for (&i, o) in self.params.iter().zip(&step.orthogonal) {
            let o = o.as_ref().expect("every matrix orthogonalised before it is applied");
            let (rows, cols) = o.dim();
            let scale = lr * (1f32).max(rows as f32 / cols as f32).sqrt();
            let p = values[i].as_slice_mut().expect("standard layout");
            let o = o.as_slice().expect("standard layout");
            p.iter_mut().zip(o).for_each(|(p, &o)| {
                *p *= decay;
                *p -= scale * o;
            });
        }
    }
}

/// A Muon step begun: the momentum it will keep, and each matrix's update with its
/// orthogonalised form once computed (here or by another worker).
#[derive(Clone, Debug)]
pub struct MuonStep {
    buffers: Vec<ArrayD<f32>>,
    pub updates: Vec<Array2<f32>>,
    pub orthogonal: Vec<Option<Array2<f32>>>,
}

impl MuonStep {
    /// Orthogonalises every matrix not done yet, on up to `threads` threads.
    pub fn complete(&mut self, threads: usize) {
        let missing: Vec<usize> = (0..self.updates.len()).filter(|&k| self.orthogonal[k].is_none()).collect();
        let updates: Vec<Array2<f32>> = missing.iter().map(|&k| self.updates[k].clone()).collect();
        for (k, o) in missing.into_iter().zip(orthogonalize_all(&updates, threads)) {
            self.orthogonal[k] = Some(o);
        }
    }
}

/// Newton–Schulz: `update` with its singular values pushed towards 1 (about U Vᵀ of its SVD),
/// as `torch.optim.Muon` computes it: scaled to a Frobenius norm of 1, then five times
/// `X ← a X + (b A + c A²) X` with `A = X Xᵀ`, on the wide orientation. In f32 (PyTorch runs it
/// in bfloat16, for GPUs).
pub fn orthogonalize(update: ArrayView2<f32>) -> Array2<f32> {
    let tall = update.nrows() > update.ncols();
    let mut x = if tall { update.t().as_standard_layout().into_owned() } else { update.to_owned() };
    let norm = x.iter().map(|&v| v * v).sum::<f32>().sqrt().max(EPS);
    x.mapv_inplace(|v| v / norm);
    let (a, b, c) = NS_COEFFICIENTS;
    let r = x.nrows();
    let (mut gram, mut poly, mut next) = (Array2::zeros((r, r)), Array2::zeros((r, r)), Array2::zeros(x.raw_dim()));
    for _ in 0..NS_STEPS {
        gemm_symmetric(1.0, &x.view(), &x.t(), &mut gram.view_mut()); // A = X Xᵀ
        gemm_symmetric(c, &gram.view(), &gram.view(), &mut poly.view_mut()); // B = b A + c A A
        poly.zip_mut_with(&gram, |p, &g| *p += b * g);
        next.zip_mut_with(&x, |n, &v| *n = a * v); // X = a X + B X
        gemm(1.0, &poly.view(), &x.view(), true, &mut next.view_mut());
        std::mem::swap(&mut x, &mut next);
    }
    if tall {
        x.t().as_standard_layout().into_owned()
    } else {
        x
    }
}

/// [`orthogonalize`] of a `rows` × `cols` matrix held flat in `values`, in place: what another
/// worker computes for a run's update.
pub fn orthogonalize_in_place(values: &mut [f32], rows: usize, cols: usize) -> crate::Result<()> {
    let matrix = ArrayView2::from_shape((rows, cols), &*values)
        .map_err(|_| crate::Error::Data(format!("a {rows} × {cols} matrix does not have {} values", values.len())))?;
    let orthogonal = orthogonalize(matrix);
    values.copy_from_slice(orthogonal.as_slice().expect("standard layout"));
    Ok(())
}

/// Which matrices each of `workers` workers orthogonalises: the costliest first, each to the
/// worker with the least work so far (the first of equals). Fixed by the shapes and the count;
/// and any worker gives a matrix the same bits, so the result never depends on either.
pub fn shares(shapes: &[(usize, usize)], workers: usize) -> Vec<Vec<usize>> {
    let workers = workers.clamp(1, shapes.len().max(1));
    // Newton–Schulz's multiply-adds: three products a step over the short side r and long side n.
    let cost = |&(rows, cols): &(usize, usize)| rows.min(cols) * rows.min(cols) * (2 * rows.max(cols) + rows.min(cols));
    let mut order: Vec<usize> = (0..shapes.len()).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(cost(&shapes[k])), k));
    let (mut out, mut load) = (vec![vec![]; workers], vec![0usize; workers]);
    for k in order {
        let w = (0..workers).min_by_key(|&w| (load[w], w)).expect("at least one worker");
        load[w] += cost(&shapes[k]);
        out[w].push(k);
    }
    out.iter_mut().for_each(|share| share.sort_unstable());
    out
}

/// [`orthogonalize`] for each of `updates` on up to `threads` threads, shared as [`shares`]
/// says: the same bits whatever the count.
pub fn orthogonalize_all(updates: &[Array2<f32>], threads: usize) -> Vec<Array2<f32>> {
    let threads = threads.clamp(1, updates.len().max(1));
    if threads == 1 {
        return updates.iter().map(|u| orthogonalize(u.view())).collect();
    }
    let plan = shares(&updates.iter().map(|u| u.dim()).collect::<Vec<_>>(), threads);
    let mut out: Vec<Option<Array2<f32>>> = vec![None; updates.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = plan
            .iter()
            .map(|share| {
                scope.spawn(move || share.iter().map(|&k| (k, orthogonalize(updates[k].view()))).collect::<Vec<_>>())
            })
            .collect();
        for handle in handles {
            for (k, o) in handle.join().expect("Newton–Schulz does not panic") {
                out[k] = Some(o);
            }
        }
    });
    out.into_iter().map(|o| o.expect("every matrix computed")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random(rows: usize, cols: usize, seed: u64) -> Array2<f32> {
        let mut rng = Rng::new(seed);
        Array2::from_shape_fn((rows, cols), |_| rng.normal())
    }

    #[test]
    fn newton_schulz_brings_the_singular_values_near_one() {
        for (rows, cols) in [(8, 24), (24, 8), (16, 16)] {
            let o = orthogonalize(random(rows, cols, 3).view());
            assert_eq!(o.dim(), (rows, cols));
            // Its Gram matrix on the small side is near the identity: singular values in (0.5, 1.5).
            let gram = if rows <= cols { o.dot(&o.t()) } else { o.t().dot(&o) };
            for (i, row) in gram.rows().into_iter().enumerate() {
                assert!((0.25..2.25).contains(&row[i]), "{rows}×{cols}: diagonal {}", row[i]);
            }
        }
        assert!(orthogonalize(Array2::zeros((3, 5)).view()).iter().all(|&v| v == 0.0), "zero stays zero");
    }

    #[test]
    fn shares_balance_the_work_and_cover_every_matrix_once() {
        // nano-cpu's four matrices a block, twice: c_attn, attn.c_proj, c_fc, mlp.c_proj.
        let block = [(384, 128), (128, 128), (512, 128), (128, 512)];
        let shapes: Vec<_> = block.iter().chain(&block).copied().collect();
        let two = shares(&shapes, 2);
        // 58.7M multiply-adds each, where k mod 2 gives one worker 168M of the 293M.
        assert_eq!(two, [vec![0, 1, 2, 6], vec![3, 4, 5, 7]]);
        let mut all: Vec<usize> = shares(&shapes, 3).concat();
        all.sort_unstable();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
        assert_eq!(shares(&shapes[..1], 4), [vec![0]], "no more workers than matrices");
    }

    #[test]
    fn any_thread_count_gives_the_same_bits() {
        let updates: Vec<_> = (0..5).map(|k| random(6 + k, 10, k as u64)).collect();
        let one = orthogonalize_all(&updates, 1);
        assert_eq!(orthogonalize_all(&updates, 2), one);
        assert_eq!(orthogonalize_all(&updates, 3), one);
    }
}
