//! A deep linear network, `y = x M₁ M₂ … M_L` (each layer PyTorch's bias-free `nn.Linear`, its
//! weight `M_iᵀ`), shown Gaussian inputs and a teacher matrix's outputs: the model whose learning
//! coefficient Aoyagi (2024) gives in closed form ([`aoyagi`]), which devinterp's `zoo/dlns` builds
//! to test its estimator. Trained, and sampled, as any model of the one trainer (a [`SeededModel`]);
//! each batch row is a seed its input is drawn from ([`super::data::ToyData`]).
//!
//! Its loss is the mean over rows of ‖ŷ − y‖², with targets free of noise, so the teacher's own
//! factorisation ([`DeepLinear::at_teacher`]) is an exact minimum.

use super::seeded::SeededModel;
use crate::error::{Error, Result};
use crate::params::Params;
use crate::rng::Rng;
use ndarray::{ArrayD, IxDyn};

/// Mixed into a row's seed so that its stream is its own.
const ROW_STREAM: u64 = 0x64_6c_6e_2d_72_6f_77;

#[derive(Clone, Debug)]
pub struct DeepLinear {
    /// Input, hidden and output widths: `widths[i]` to `widths[i + 1]` is layer `i`.
    widths: Vec<usize>,
    params: Params,
    /// The teacher's factors: `U` (input × rank) and `V` (rank × output), row by row.
    teacher: (Vec<f32>, Vec<f32>),
    /// The teacher as one layer's weight, `(U V)ᵀ` (output × input): what makes the targets.
    product: Vec<f32>,
    rank: usize,
}

impl DeepLinear {
    /// A network of `widths` (at least input and output, none 0) with PyTorch's default
    /// initialisation scale, and a teacher of `rank` (at most the narrowest width) drawn from
    /// `seed`.
    pub fn new(widths: &[usize], rank: usize, seed: u64) -> Result<DeepLinear> {
        if widths.len() < 2 || widths.contains(&0) || rank > *widths.iter().min().expect("two widths") {
            return Err(Error::Config(crate::words::runs::bug(format!(
                "a deep linear network needs two or more widths above 0, and a rank no wider than \
                 its narrowest: not {widths:?} with rank {rank}"
            ))));
        }
        let mut rng = Rng::new(seed);
        let mut params = Params::default();
        for (i, pair) in widths.windows(2).enumerate() {
            let bound = 1.0 / (pair[0] as f32).sqrt();
            let weight =
                ArrayD::from_shape_simple_fn(IxDyn(&[pair[1], pair[0]]), || bound * (2.0 * rng.uniform() - 1.0));
            params.names.push(format!("layers.{i}.weight"));
            params.values.push(weight);
        }
        let (input, output) = (widths[0], widths[widths.len() - 1]);
        let u: Vec<f32> = (0..input * rank).map(|_| rng.normal()).collect();
        let v: Vec<f32> = (0..rank * output).map(|_| rng.normal()).collect();
        let mut product = vec![0.0; output * input];
        for o in 0..output {
            for j in 0..input {
                product[o * input + j] = (0..rank).map(|k| u[j * rank + k] * v[k * output + o]).sum();
            }
        }
        Ok(DeepLinear { widths: widths.to_vec(), params, teacher: (u, v), product, rank })
    }

    /// Sets the weights to the teacher's factorisation: `M₁ = [U 0]`, each middle layer the
    /// identity on the first `rank` channels, and `M_L = [V; 0]` (one layer: `U V` itself).
    pub fn at_teacher(&mut self) {
        let (u, v) = &self.teacher;
        let (r, last) = (self.rank, self.widths.len() - 2);
        for (i, value) in self.params.values.iter_mut().enumerate() {
            let (n_in, n_out) = (self.widths[i], self.widths[i + 1]);
            let m = value.as_slice_mut().expect("standard layout"); // row o, column j: M[j][o]
            m.fill(0.0);
            for o in 0..n_out {
                for j in 0..n_in {
                    m[o * n_in + j] = match (i == 0, i == last) {
                        (true, true) => self.product[o * n_in + j],
                        (true, false) if o < r => u[j * r + o],
                        (false, true) if j < r => v[j * n_out + o],
                        (false, false) if o == j && o < r => 1.0,
                        _ => 0.0,
                    };
                }
            }
        }
    }

    /// The rows a batch's seeds draw: inputs (rows × input), standard normal.
    fn inputs(&self, seeds: &[usize]) -> Vec<f32> {
        let input = self.widths[0];
        let mut x = Vec::with_capacity(seeds.len() * input);
        for &seed in seeds {
            let mut rng = Rng::new(ROW_STREAM ^ seed as u64);
            x.extend((0..input).map(|_| rng.normal()));
        }
        x
    }

    /// `x` (rows × `widths[0]`) through each layer (its input and output widths, its weight
    /// `Mᵀ`): the input and every activation after it.
    fn through(&self, x: Vec<f32>, layers: &[(usize, usize, &[f32])]) -> Vec<Vec<f32>> {
        let rows = x.len() / self.widths[0];
        let mut acts = vec![x];
        for &(n_in, n_out, w) in layers {
            let last = acts.last().expect("the input");
            let mut out = vec![0.0; rows * n_out];
            for (xr, or) in last.chunks_exact(n_in).zip(out.chunks_exact_mut(n_out)) {
                for (o, value) in or.iter_mut().enumerate() {
                    *value = xr.iter().zip(&w[o * n_in..(o + 1) * n_in]).map(|(a, b)| a * b).sum();
                }
            }
            acts.push(out);
        }
        acts
    }

    /// The mean over rows of ‖ŷ − y‖² on the seeds' rows; with `grads`, adds `weight` times its
    /// gradient into them.
    fn loss(&self, seeds: &[usize], grads: Option<(&mut [f32], f32)>) -> f32 {
        let x = self.inputs(seeds);
        let rows = seeds.len();
        let layers: Vec<_> = (self.params.values.iter().enumerate())
            .map(|(i, v)| (self.widths[i], self.widths[i + 1], v.as_slice().expect("standard layout")))
            .collect();
        let acts = self.through(x.clone(), &layers);
        let (input, output) = (self.widths[0], self.widths[self.widths.len() - 1]);
        let target = self.through(x, &[(input, output, &self.product)]).pop().expect("the output");
        let out = acts.last().expect("the output");
        let mut delta: Vec<f32> = out.iter().zip(target).map(|(a, b)| a - b).collect();
        let loss = delta.iter().map(|d| f64::from(*d) * f64::from(*d)).sum::<f64>() / rows as f64;
        let Some((grads, weight)) = grads else { return loss as f32 };
        delta.iter_mut().for_each(|d| *d *= 2.0 / rows as f32);
        let offsets: Vec<usize> =
            self.params.values.iter().scan(0, |at, v| Some(std::mem::replace(at, *at + v.len()))).collect();
        for i in (0..self.params.values.len()).rev() {
            let (n_in, n_out) = (self.widths[i], self.widths[i + 1]);
            let w = self.params.values[i].as_slice().expect("standard");
            let g = &mut grads[offsets[i]..offsets[i] + n_in * n_out];
            let mut back = vec![0.0; rows * n_in];
            for ((dr, xr), br) in
                delta.chunks_exact(n_out).zip(acts[i].chunks_exact(n_in)).zip(back.chunks_exact_mut(n_in))
            {
                for (o, d) in dr.iter().enumerate() {
                    for j in 0..n_in {
                        g[o * n_in + j] += weight * d * xr[j];
                        br[j] += d * w[o * n_in + j];
                    }
                }
            }
            delta = back;
        }
        loss as f32
    }
}

impl SeededModel for DeepLinear {
    fn params(&self) -> &Params {
        &self.params
    }

    fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    fn seeded_loss(&self, seeds: &[usize], grads: Option<(&mut [f32], f32)>) -> f32 {
        self.loss(seeds, grads)
    }
}

/// The learning coefficient of a deep linear network of `widths` (input, hidden, output) at a
/// teacher of `rank` (Aoyagi 2024, Theorem 1). With `Δ_i = widths[i] − rank`, it takes the subset
/// Σ of the layers, of ℓ + 1 members, whose Δs are all below the others' and whose sum S is at
/// least ℓ times their largest and below ℓ times the smallest of the others'. Then, with
/// `a = S − (⌈S/ℓ⌉ − 1) ℓ`:
///
///   λ = (r (input + output) − r²)/2 + a (ℓ − a)/(4ℓ) − ℓ (ℓ − 1)/4 · (S/ℓ)² + ½ Σ_{i<j ∈ Σ} Δ_i Δ_j
/// Not a number for fewer than two widths or a rank wider than the narrowest.
pub fn aoyagi(widths: &[usize], rank: usize) -> f64 {
    if widths.len() < 2 || widths.iter().any(|&w| w < rank) {
        return f64::NAN;
    }
    let deltas: Vec<f64> = widths.iter().map(|&w| (w - rank) as f64).collect();
    let n = deltas.len();
    let (input, output, r) = (widths[0] as f64, widths[n - 1] as f64, rank as f64);
    for members in 2..=n {
        // Σ is made of the smallest Δs, so only the `members` smallest need trying.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| deltas[a].total_cmp(&deltas[b]));
        let (inside, outside) = order.split_at(members);
        let l = (members - 1) as f64;
        let sum: f64 = inside.iter().map(|&i| deltas[i]).sum();
        let largest = inside.iter().map(|&i| deltas[i]).fold(f64::MIN, f64::max);
        let smallest_out = outside.iter().map(|&i| deltas[i]).fold(f64::INFINITY, f64::min);
        if largest < smallest_out && sum >= l * largest && sum < l * smallest_out {
            let a = sum - ((sum / l).ceil() - 1.0) * l;
            let pairs: f64 = inside
                .iter()
                .enumerate()
                .map(|(k, &i)| inside[k + 1..].iter().map(|&j| deltas[i] * deltas[j]).sum::<f64>())
                .sum();
            return (r * (input + output) - r * r) / 2.0 + a * (l - a) / (4.0 * l)
                - l * (l - 1.0) / 4.0 * (sum / l).powi(2)
                + pairs / 2.0;
        }
    }
    f64::NAN // Aoyagi shows the subset always exists
}
