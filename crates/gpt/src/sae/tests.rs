//! The autoencoder's gradients against finite differences, for each architecture and the
//! auxiliary loss, its tallies and its start (its training through a run: `tests/features.rs`).

use super::loss::backward;
use super::*;
use crate::rng::Rng;
use crate::workspace::Workspace;

const D_IN: usize = 4;

fn sae(architecture: Architecture, seed: u64) -> Sae {
    let config = SaeConfig { expansion: 3, architecture, dead_tokens: 10, ..SaeConfig::top_k(0) };
    started(config, seed)
}

/// A transcoder of block 0's MLP, with a skip connection or not.
fn transcoder(architecture: Architecture, skip: bool, seed: u64) -> Sae {
    let config = SaeConfig { expansion: 3, architecture, dead_tokens: 10, skip, ..SaeConfig::transcoder(0) };
    started(config, seed)
}

/// What is trained: an autoencoder, or a transcoder with a skip connection or not.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Autoencoder,
    Transcoder { skip: bool },
}

fn started(config: SaeConfig, seed: u64) -> Sae {
    let mut sae = Sae::new(config, 1, D_IN, seed).unwrap();
    // Weights and biases away from their start, so that every term of the gradient shows.
    let mut rng = Rng::new(seed + 1);
    for value in sae.params_mut().values.iter_mut() {
        value.iter_mut().for_each(|x| *x += 0.3 * rng.normal());
    }
    sae
}

fn activations(rows: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..rows * D_IN).map(|_| rng.normal() + 0.5).collect()
}

/// The losses of `sae` on `x` against `target`, written plainly in f64 from its definition (a
/// transcoder reads x as it is, an autoencoder x − b_dec): the auxiliary loss reconstructs the
/// error `residual_error` (x̂ − target), taken as a constant as the training takes it.
fn reference_loss(sae: &Sae, x: &[f32], target: &[f32], dead: Option<&[bool]>, residual_error: &[f64]) -> f64 {
    let (d, m) = (sae.d_in(), sae.d_sae());
    let p = |name: &str| sae.params().get(name).unwrap().iter().map(|&v| v as f64).collect::<Vec<_>>();
    let (w_enc, b_enc, w_dec, b_dec) = (p("W_enc"), p("b_enc"), p("W_dec"), p("b_dec"));
    // out += x W_skipᵀ, W_skip (out, in).
    let w_skip = if sae.config().skip { p("W_skip") } else { vec![0.0; d * d] };
    let rows = x.len() / d;
    let shift = if sae.config().is_transcoder() { 0.0 } else { 1.0 };
    let mut total = 0.0;
    for n in 0..rows {
        let pre: Vec<f64> = (0..m)
            .map(|j| {
                b_enc[j] + (0..d).map(|i| (x[n * d + i] as f64 - shift * b_dec[i]) * w_enc[i * m + j]).sum::<f64>()
            })
            .collect();
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by(|&a, &b| pre[b].total_cmp(&pre[a]).then(a.cmp(&b)));
        let active: Vec<usize> = match sae.config().architecture {
            Architecture::TopK { k, .. } => order[..k].iter().copied().filter(|&j| pre[j] > 0.0).collect(),
            Architecture::Relu { .. } => (0..m).filter(|&j| pre[j] > 0.0).collect(),
        };
        let recon = |features: &[usize], bias: bool| -> Vec<f64> {
            (0..d)
                .map(|i| {
                    features.iter().map(|&j| pre[j] * w_dec[j * d + i]).sum::<f64>() + if bias { b_dec[i] } else { 0.0 }
                })
                .collect()
        };
        let mut x_hat = recon(&active, true);
        for (o, out) in x_hat.iter_mut().enumerate() {
            *out += (0..d).map(|i| w_skip[o * d + i] * x[n * d + i] as f64).sum::<f64>();
        }
        total += (0..d).map(|i| (x_hat[i] - target[n * d + i] as f64).powi(2)).sum::<f64>();
        match (sae.config().architecture, dead) {
            (Architecture::Relu { l1_coefficient }, _) => {
                total += l1_coefficient as f64 * active.iter().map(|&j| pre[j]).sum::<f64>()
            }
            (Architecture::TopK { aux_coefficient, .. }, Some(dead)) => {
                let num_dead = dead.iter().filter(|&&x| x).count();
                let k_aux = (d / 2).min(num_dead);
                let scale = aux_coefficient as f64 * (num_dead as f64 / (d / 2) as f64).min(1.0);
                let chosen: Vec<usize> = order.iter().copied().filter(|&j| dead[j]).take(k_aux).collect();
                let aux = recon(&chosen, false);
                total += scale * (0..d).map(|i| (aux[i] + residual_error[n * d + i]).powi(2)).sum::<f64>();
            }
            _ => {}
        }
    }
    total / rows as f64
}

/// The largest gap between the gradient `backward` writes and central differences of the loss
/// written plainly, and between their losses.
fn gradient_gap(architecture: Architecture, dead: Option<&[bool]>, kind: Kind) -> f64 {
    let ws = Workspace::default();
    let mut model = match kind {
        Kind::Autoencoder => sae(architecture, 7),
        Kind::Transcoder { skip } => transcoder(architecture, skip, 8),
    };
    let x = activations(6, 3);
    let target = if let Kind::Transcoder { .. } = kind { activations(6, 4) } else { x.clone() };
    let n = model.params().count();
    let (mut grads, mut fired) = (vec![0.0; n], vec![0.0; model.d_sae()]);
    let weight = 0.5;
    let losses = backward(model.view(), &ws, &x, &target, dead, weight, &mut grads, &mut fired);
    let codes = model.encode(&ws, &x);
    let error: Vec<f64> = model.view().output(&x, &codes).iter().zip(&target).map(|(r, &y)| (r - y) as f64).collect();
    let mut worst = (reference_loss(&model, &x, &target, dead, &error) - losses.total() as f64).abs();
    let mut flat = 0;
    for k in 0..model.params().values.len() {
        for i in 0..model.params().values[k].len() {
            let mut loss_at = |delta: f32| {
                let kept = model.params().values[k].as_slice().unwrap()[i];
                model.params_mut().values[k].as_slice_mut().unwrap()[i] = kept + delta;
                let loss = reference_loss(&model, &x, &target, dead, &error);
                let same_features = model.encode(&ws, &x).features == codes.features;
                model.params_mut().values[k].as_slice_mut().unwrap()[i] = kept;
                assert!(same_features, "a step of the difference changed which features fire");
                loss
            };
            let h = 1e-3;
            let numeric = weight as f64 * (loss_at(h) - loss_at(-h)) / (2.0 * h as f64);
            worst = worst.max((numeric - grads[flat] as f64).abs() / (1.0 + numeric.abs()));
            flat += 1;
        }
    }
    worst
}

#[test]
fn gradients_match_finite_differences() {
    let top_k = Architecture::TopK { k: 3, aux_coefficient: 0.7 };
    let dead = [true, false, true, false, false, true, true, false, false, false, true, false];
    let relu = Architecture::Relu { l1_coefficient: 0.2 };
    for kind in [Kind::Autoencoder, Kind::Transcoder { skip: false }, Kind::Transcoder { skip: true }] {
        for (architecture, dead) in [(top_k, None), (top_k, Some(&dead[..])), (relu, None)] {
            let gap = gradient_gap(architecture, dead, kind);
            assert!(gap < 1e-3, "{architecture:?} with dead {dead:?}, {kind:?}: gap {gap}");
        }
    }
}

#[test]
fn tallies_count_each_features_firing() {
    let ws = Workspace::default();
    let model = sae(Architecture::TopK { k: 2, aux_coefficient: 1.0 }, 5);
    let x = activations(5, 9);
    let (mut grads, mut tallies) = (vec![0.0; model.params().count()], vec![1.0; model.d_sae()]);
    backward(model.view(), &ws, &x, &x, None, 1.0, &mut grads, &mut tallies);
    let codes = model.encode(&ws, &x);
    for (j, &tally) in tallies.iter().enumerate() {
        let fired = (0..5).filter(|&n| codes.row(n).any(|(f, _)| f == j)).count();
        assert_eq!(tally, 1.0 + fired as f32, "feature {j}: added to what was there");
    }
}

#[test]
fn the_decoder_bias_starts_at_the_geometric_median() {
    let mut model = sae(Architecture::TopK { k: 2, aux_coefficient: 1.0 }, 5);
    // Four points on a line and one far away: the median is the middle one, where the mean is 21.
    let sample: Vec<f32> = [0.0, 1.0, 2.0, 3.0, 100.0].iter().flat_map(|&x| [x, 0.0, 0.0, 0.0]).collect();
    model.centre(&sample);
    let b_dec = model.params().get("b_dec").unwrap();
    assert!((b_dec[0] - 2.0).abs() < 1e-3, "{b_dec:?}");
}
