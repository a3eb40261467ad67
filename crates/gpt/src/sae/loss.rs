//! An autoencoder's loss and its gradient, SAELens's: the squared error summed over channels and
//! averaged over tokens; for Matryoshka, each nested level's too; for TopK and its kin, the
//! auxiliary loss that has the dead features' top `d_in / 2` reconstruct the error; for ReLU the
//! L1 penalty; for JumpReLU the penalty on how many fire, its thresholds learning by a
//! straight-through estimate. The backward pass is written out by hand and stays sparse: only
//! firing features (and a JumpReLU's near its threshold) get gradients.

use super::codes::Codes;
use super::config::Architecture;
use super::weights::{SaeRef, W_ENC};
use crate::ops::gemm::gemm;
use crate::workspace::Workspace;
use ndarray::{ArrayView2, ArrayViewMut2};

/// A batch's losses, each a mean over its tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    /// ‖x̂ − x‖², SAELens's `mse_loss`.
    pub mse: f32,
    /// TopK's auxiliary loss (weighted), or 0.
    pub aux: f32,
    /// ReLU's L1 penalty (weighted), or 0.
    pub l1: f32,
    /// Matryoshka's inner levels' squared errors, or 0.
    pub inner: f32,
    /// JumpReLU's penalty on the features firing (weighted), or 0.
    pub l0: f32,
    /// The least activation that fired, which a BatchTopK autoencoder's threshold follows.
    pub least_fired: Option<f32>,
}

impl Losses {
    pub fn total(&self) -> f32 {
        self.mse + self.aux + self.l1 + self.inner + self.l0
    }
}

/// SAELens's `rectangle`: the window a JumpReLU threshold's straight-through estimate sees.
fn in_window(z: f32) -> bool {
    -0.5 < z && z < 0.5
}

/// ‖a − b‖² over every value.
pub(crate) fn squared_error(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(p, q)| (p - q) * (p - q)).sum()
}

/// The losses of `sae` on `x` (rows of `d_in` activations) against `target` (`x` itself for an
/// autoencoder, the MLP's output for a transcoder), the `dead` features (when given)
/// reconstructing the error for TopK's auxiliary loss; writes `weight` times their gradient into
/// `grads` (its tensors, flat) and adds how many rows each feature fired on to `fired`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward(
    sae: SaeRef,
    ws: &Workspace,
    x: &[f32],
    target: &[f32],
    dead: Option<&[bool]>,
    weight: f32,
    grads: &mut [f32],
    fired: &mut [f32],
) -> Losses {
    let (d, m) = (sae.d_in(), sae.d_sae());
    let rows = x.len() / d;
    let per_row = 1.0 / rows.max(1) as f32;
    let (pre, centred) = sae.pre_activations(ws, x);
    let architecture = sae.config().architecture;
    let threshold = sae.threshold();
    let codes = Codes::training(&pre, m, architecture, threshold);
    let mut error = sae.output(x, &codes);
    error.iter_mut().zip(target).for_each(|(e, &y)| *e -= y);
    let mut losses = Losses { mse: error.iter().map(|e| e * e).sum::<f32>() * per_row, ..Losses::default() };
    losses.least_fired = codes.values.iter().copied().reduce(f32::min);

    grads.fill(0.0);
    let (g_w_enc, rest) = grads.split_at_mut(d * m);
    let (g_b_enc, rest) = rest.split_at_mut(m);
    let (g_w_dec, rest) = rest.split_at_mut(m * d);
    let (g_b_dec, rest) = rest.split_at_mut(d);
    let (g_w_skip, g_threshold) = rest.split_at_mut(if sae.config().skip { d * d } else { 0 });
    // The encoder's gradient, one contiguous row per feature: its transpose.
    let mut g_enc_t = ws.zeros(m * d);
    let mut through = |j: usize, a: f32, d_out: &[f32], extra: f32, row: usize| {
        // a feature's activation a adds a·W_dec[j] to an output whose gradient is d_out.
        let w = sae.direction(j);
        g_w_dec[j * d..(j + 1) * d].iter_mut().zip(d_out).for_each(|(g, &o)| *g += a * o);
        let d_pre = w.iter().zip(d_out).map(|(w, o)| w * o).sum::<f32>() + extra;
        let c = &centred[row * d..(row + 1) * d];
        g_enc_t[j * d..(j + 1) * d].iter_mut().zip(c).for_each(|(g, &c)| *g += d_pre * c);
        g_b_enc[j] += d_pre;
    };
    let l1 = match architecture {
        Architecture::Relu { l1_coefficient } => l1_coefficient,
        _ => 0.0,
    };
    // Each nested level reconstructs from the features below its width; a feature's output
    // gradient sums those of the levels it is in (one level but for Matryoshka).
    let widths = architecture.widths(m);
    let levels = widths.len();
    let band = |j: usize| widths.iter().position(|&w| j < w).expect("the last width is d_sae");
    let (mut d_outs, mut level_error, mut row_codes) = (vec![0.0; levels * d], vec![0.0; d], Vec::new());
    for n in 0..rows {
        // From the whole level down: a level's error lacks the features past its width.
        level_error.copy_from_slice(&error[n * d..(n + 1) * d]);
        row_codes.clear();
        row_codes.extend(codes.row(n));
        for level in (0..levels).rev() {
            let d_out = &mut d_outs[level * d..(level + 1) * d];
            d_out.iter_mut().zip(&level_error).for_each(|(o, &e)| *o = 2.0 * weight * per_row * e);
            if level + 1 < levels {
                losses.inner += level_error.iter().map(|e| e * e).sum::<f32>() * per_row;
                let (outer, inner) = d_outs.split_at_mut((level + 1) * d);
                outer[level * d..].iter_mut().zip(&inner[..d]).for_each(|(o, &i)| *o += i);
            }
            if level > 0 {
                while let Some(&(j, a)) = row_codes.last().filter(|&&(j, _)| j >= widths[level - 1]) {
                    level_error.iter_mut().zip(sae.direction(j)).for_each(|(e, &w)| *e -= a * w);
                    row_codes.pop();
                }
            }
        }
        g_b_dec.iter_mut().zip(&d_outs[..d]).for_each(|(g, &o)| *g += o);
        for (j, a) in codes.row(n) {
            losses.l1 += l1 * a * per_row;
            let level = band(j);
            through(j, a, &d_outs[level * d..(level + 1) * d], weight * l1 * per_row, n);
            fired[j] += 1.0;
        }
        if let (Architecture::JumpRelu { l0_coefficient, bandwidth }, Some(threshold)) = (architecture, threshold) {
            let d_out = &d_outs[..d];
            for j in 0..m {
                let (z, t) = (pre[n * m + j], threshold[j]);
                losses.l0 += l0_coefficient * per_row * f32::from(z > t);
                if in_window((z - t) / bandwidth) {
                    let d_act = sae.direction(j).iter().zip(d_out).map(|(w, o)| w * o).sum::<f32>();
                    g_threshold[j] -= (t * d_act + weight * l0_coefficient * per_row) / bandwidth;
                }
            }
        }
    }
    if let (Some(aux_coefficient), Some(dead)) = (architecture.aux_coefficient(), dead) {
        let num_dead = dead.iter().filter(|&&x| x).count();
        let k_aux = (d / 2).max(1);
        if num_dead > 0 && aux_coefficient > 0.0 {
            // Fewer dead features weigh less (SAELens's and EleutherAI's scale).
            let scale = aux_coefficient * (num_dead as f32 / k_aux as f32).min(1.0);
            let aux = Codes::select(&pre, m, k_aux.min(num_dead), Some(dead), false);
            let (mut recon, d_out) = (vec![0.0; d], &mut d_outs[..d]);
            for n in 0..rows {
                // The residual x − x̂ is −error, taken as a constant.
                recon.copy_from_slice(&error[n * d..(n + 1) * d]);
                sae.add_directions(aux.row(n), &mut recon);
                losses.aux += scale * recon.iter().map(|r| r * r).sum::<f32>() * per_row;
                d_out.iter_mut().zip(&recon).for_each(|(o, &r)| *o = 2.0 * scale * weight * per_row * r);
                for (j, a) in aux.row(n) {
                    through(j, a, d_out, 0.0, n);
                }
            }
        }
    }
    // An autoencoder's b_dec is also subtracted from the encoder's input.
    for (i, g) in g_b_dec.iter_mut().enumerate().filter(|_| !sae.config().is_transcoder()) {
        let w_row = &sae.slice(W_ENC)[i * m..(i + 1) * m];
        *g -= w_row.iter().zip(g_b_enc.iter()).map(|(w, g)| w * g).sum::<f32>();
    }
    if sae.config().skip {
        // (A skip transcoder is never Matryoshka: its one level's error is the output's.)
        // x̂ += x W_skipᵀ: the MSE's gradient (W_skip's only one: the aux loss's residual is a
        // constant) is Σ_n d_out[n]ᵀ x[n], with d_out = 2·weight·error/rows.
        let e = ArrayView2::from_shape((rows, d), &error[..]).expect("rows of d_in");
        let x = ArrayView2::from_shape((rows, d), x).expect("rows of d_in");
        let mut g = ArrayViewMut2::from_shape((d, d), g_w_skip).expect("(d_in, d_in)");
        gemm(2.0 * weight * per_row, &e.t(), &x, false, &mut g);
    }
    for (i, row) in g_w_enc.chunks_exact_mut(m).enumerate() {
        row.iter_mut().enumerate().for_each(|(j, g)| *g = g_enc_t[j * d + i]);
    }
    ws.recycle(g_enc_t);
    ws.recycle(pre);
    ws.recycle(centred);
    losses
}
