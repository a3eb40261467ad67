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

/// The features each row fires in training, written plainly: a row's TopK, every positive, the
/// batch's `k × rows` largest positive, or those above their threshold.
fn reference_active(sae: &Sae, pre: &[Vec<f64>], orders: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let (m, architecture) = (sae.d_sae(), sae.config().architecture);
    let threshold = sae.params().get("threshold").map(|t| t.iter().map(|&v| v as f64).collect::<Vec<_>>());
    match architecture {
        Architecture::TopK { k, .. } => orders
            .iter()
            .zip(pre)
            .map(|(order, pre)| order[..k].iter().copied().filter(|&j| pre[j] > 0.0).collect())
            .collect(),
        Architecture::Relu { .. } => pre.iter().map(|pre| (0..m).filter(|&j| pre[j] > 0.0).collect()).collect(),
        Architecture::BatchTopK { k, .. } | Architecture::Matryoshka { k, .. } => {
            let mut all: Vec<(usize, usize)> = (0..pre.len()).flat_map(|n| (0..m).map(move |j| (n, j))).collect();
            all.retain(|&(n, j)| pre[n][j] > 0.0);
            all.sort_by(|&(a, i), &(b, j)| pre[b][j].total_cmp(&pre[a][i]).then((a, i).cmp(&(b, j))));
            all.truncate(k * pre.len());
            (0..pre.len()).map(|n| (0..m).filter(|&j| all.contains(&(n, j))).collect()).collect()
        }
        Architecture::JumpRelu { .. } => {
            let t = threshold.expect("a JumpReLU autoencoder keeps thresholds");
            pre.iter().map(|pre| (0..m).filter(|&j| pre[j] > t[j].max(0.0)).collect()).collect()
        }
    }
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
    let architecture = sae.config().architecture;
    let pre: Vec<Vec<f64>> = (0..rows)
        .map(|n| {
            let input = |i: usize| x[n * d + i] as f64 - shift * b_dec[i];
            (0..m).map(|j| b_enc[j] + (0..d).map(|i| input(i) * w_enc[i * m + j]).sum::<f64>()).collect()
        })
        .collect();
    let orders: Vec<Vec<usize>> = pre
        .iter()
        .map(|pre| {
            let mut order: Vec<usize> = (0..m).collect();
            order.sort_by(|&a, &b| pre[b].total_cmp(&pre[a]).then(a.cmp(&b)));
            order
        })
        .collect();
    let actives = reference_active(sae, &pre, &orders);
    let mut total = 0.0;
    for n in 0..rows {
        let (pre, active) = (&pre[n], &actives[n]);
        let recon = |features: &[usize], bias: bool| -> Vec<f64> {
            (0..d)
                .map(|i| {
                    features.iter().map(|&j| pre[j] * w_dec[j * d + i]).sum::<f64>() + if bias { b_dec[i] } else { 0.0 }
                })
                .collect()
        };
        // Every nested level's error (one level but for Matryoshka), the whole dictionary's last.
        for width in architecture.widths(m) {
            let within: Vec<usize> = active.iter().copied().filter(|&j| j < width).collect();
            let mut x_hat = recon(&within, true);
            for (o, out) in x_hat.iter_mut().enumerate() {
                *out += (0..d).map(|i| w_skip[o * d + i] * x[n * d + i] as f64).sum::<f64>();
            }
            total += (0..d).map(|i| (x_hat[i] - target[n * d + i] as f64).powi(2)).sum::<f64>();
        }
        match (architecture, dead) {
            (Architecture::Relu { l1_coefficient }, _) => {
                total += l1_coefficient as f64 * active.iter().map(|&j| pre[j]).sum::<f64>()
            }
            (Architecture::JumpRelu { l0_coefficient, .. }, _) => {
                let t = p("threshold");
                total += l0_coefficient as f64 * (0..m).filter(|&j| pre[j] > t[j]).count() as f64;
            }
            (_, Some(dead)) if architecture.aux_coefficient().is_some() => {
                let aux_coefficient = architecture.aux_coefficient().unwrap();
                let num_dead = dead.iter().filter(|&&x| x).count();
                let k_aux = (d / 2).min(num_dead);
                let scale = aux_coefficient as f64 * (num_dead as f64 / (d / 2) as f64).min(1.0);
                let chosen: Vec<usize> = orders[n].iter().copied().filter(|&j| dead[j]).take(k_aux).collect();
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
    let training_codes = |model: &Sae| {
        let (pre, _) = model.view().pre_activations(&ws, &x);
        codes::Codes::training(&pre, model.d_sae(), architecture, model.view().threshold())
    };
    let codes = training_codes(&model);
    let error: Vec<f64> = model.view().output(&x, &codes).iter().zip(&target).map(|(r, &y)| (r - y) as f64).collect();
    let mut worst = (reference_loss(&model, &x, &target, dead, &error) - losses.total() as f64).abs();
    let mut flat = 0;
    for k in 0..model.params().values.len() {
        // A JumpReLU threshold's gradient is an estimate, not a derivative (`jump_relu_thresholds_…`).
        if model.params().names[k] == "threshold" && matches!(architecture, Architecture::JumpRelu { .. }) {
            flat += model.params().values[k].len();
            continue;
        }
        for i in 0..model.params().values[k].len() {
            let mut loss_at = |delta: f32| {
                let kept = model.params().values[k].as_slice().unwrap()[i];
                model.params_mut().values[k].as_slice_mut().unwrap()[i] = kept + delta;
                let loss = reference_loss(&model, &x, &target, dead, &error);
                let same_features = training_codes(&model).features == codes.features;
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

const DEAD: [bool; 12] = [true, false, true, false, false, true, true, false, false, false, true, false];

#[test]
fn gradients_match_finite_differences() {
    let top_k = Architecture::TopK { k: 3, aux_coefficient: 0.7 };
    let relu = Architecture::Relu { l1_coefficient: 0.2 };
    for kind in [Kind::Autoencoder, Kind::Transcoder { skip: false }, Kind::Transcoder { skip: true }] {
        for (architecture, dead) in [(top_k, None), (top_k, Some(&DEAD[..])), (relu, None)] {
            let gap = gradient_gap(architecture, dead, kind);
            assert!(gap < 1e-3, "{architecture:?} with dead {dead:?}, {kind:?}: gap {gap}");
        }
    }
}

#[test]
fn the_autoencoder_only_architectures_gradients_match_finite_differences() {
    let batch = Architecture::BatchTopK { k: 3, aux_coefficient: 0.7 };
    let matryoshka = Architecture::Matryoshka { k: 3, aux_coefficient: 0.7, levels: 3 };
    let jump = Architecture::JumpRelu { l0_coefficient: 0.3, bandwidth: 0.05 };
    for architecture in [batch, matryoshka, jump] {
        for dead in [None, Some(&DEAD[..])] {
            let gap = gradient_gap(architecture, dead, Kind::Autoencoder);
            assert!(gap < 1e-3, "{architecture:?} with dead {dead:?}: gap {gap}");
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

/// SAELens's JumpReLU threshold gradient, written plainly: within the window, −θ/ε times the
/// activation's gradient (the jump), and −1/ε times the L0 penalty's weight (the count).
#[test]
fn jump_relu_thresholds_learn_by_the_straight_through_estimate() {
    let ws = Workspace::default();
    let (l0, bandwidth, weight) = (0.3, 2.0, 0.5);
    let model = sae(Architecture::JumpRelu { l0_coefficient: l0, bandwidth }, 7);
    let x = activations(6, 3);
    let (rows, d, m) = (6, D_IN, model.d_sae());
    let (mut grads, mut fired) = (vec![0.0; model.params().count()], vec![0.0; m]);
    backward(model.view(), &ws, &x, &x, None, weight, &mut grads, &mut fired);
    let (pre, _) = model.view().pre_activations(&ws, &x);
    let error: Vec<f32> = model.view().output(&x, &model.encode(&ws, &x)).iter().zip(&x).map(|(r, y)| r - y).collect();
    let threshold = model.view().threshold().unwrap();
    let mut expected = vec![0.0f64; m];
    let mut windows = 0;
    for n in 0..rows {
        for j in 0..m {
            let t = threshold[j] as f64;
            if ((pre[n * m + j] as f64 - t) / bandwidth as f64).abs() < 0.5 {
                windows += 1;
                let d_act: f64 = (0..d)
                    .map(|i| {
                        model.direction(j)[i] as f64 * 2.0 * (weight as f64 / rows as f64) * error[n * d + i] as f64
                    })
                    .sum();
                expected[j] -= (t * d_act + weight as f64 * l0 as f64 / rows as f64) / bandwidth as f64;
            }
        }
    }
    assert!(windows > 10, "enough pre-activations near their thresholds to test: {windows}");
    let got = &grads[grads.len() - m..];
    for j in 0..m {
        assert!((got[j] as f64 - expected[j]).abs() < 1e-5, "feature {j}: {} vs {}", got[j], expected[j]);
    }
}
