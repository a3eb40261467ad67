//! The autoencoder's gradients against finite differences, for each architecture and the
//! auxiliary loss; and its training through the GPT's trainer.

use super::trainee::backward;
use super::*;
use crate::rng::Rng;
use crate::workspace::Workspace;

const D_IN: usize = 4;

fn sae(architecture: Architecture, seed: u64) -> Sae {
    let point = crate::model::HookPoint::ResidPost { layer: 0 };
    let config = SaeConfig { point, expansion: 3, architecture, dead_tokens: 10 };
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

/// The losses of `sae` on `x`, written plainly in f64 from its definition: the auxiliary loss
/// reconstructs the error `residual_error` (x̂ − x), taken as a constant as the training takes it.
fn reference_loss(sae: &Sae, x: &[f32], dead: Option<&[bool]>, residual_error: &[f64]) -> f64 {
    let (d, m) = (sae.d_in(), sae.d_sae());
    let p = |name: &str| sae.params().get(name).unwrap().iter().map(|&v| v as f64).collect::<Vec<_>>();
    let (w_enc, b_enc, w_dec, b_dec) = (p("W_enc"), p("b_enc"), p("W_dec"), p("b_dec"));
    let rows = x.len() / d;
    let mut total = 0.0;
    for n in 0..rows {
        let pre: Vec<f64> = (0..m)
            .map(|j| b_enc[j] + (0..d).map(|i| (x[n * d + i] as f64 - b_dec[i]) * w_enc[i * m + j]).sum::<f64>())
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
        let x_hat = recon(&active, true);
        total += (0..d).map(|i| (x_hat[i] - x[n * d + i] as f64).powi(2)).sum::<f64>();
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
fn gradient_gap(architecture: Architecture, dead: Option<&[bool]>) -> f64 {
    let ws = Workspace::default();
    let mut model = sae(architecture, 7);
    let x = activations(6, 3);
    let n = model.params().count();
    let mut grads = vec![0.0; n + model.d_sae() + 1];
    let weight = 0.5;
    let losses = backward(&model, &ws, &x, dead, weight, &mut grads);
    let codes = model.encode(&ws, &x);
    let error: Vec<f64> = model.decode(&codes).iter().zip(&x).map(|(r, &x)| (r - x) as f64).collect();
    let mut worst = (reference_loss(&model, &x, dead, &error) - losses.total() as f64).abs();
    let mut flat = 0;
    for k in 0..model.params().values.len() {
        for i in 0..model.params().values[k].len() {
            let mut loss_at = |delta: f32| {
                let kept = model.params().values[k].as_slice().unwrap()[i];
                model.params_mut().values[k].as_slice_mut().unwrap()[i] = kept + delta;
                let loss = reference_loss(&model, &x, dead, &error);
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
    for (architecture, dead) in
        [(top_k, None), (top_k, Some(&dead[..])), (Architecture::Relu { l1_coefficient: 0.2 }, None)]
    {
        let gap = gradient_gap(architecture, dead);
        assert!(gap < 1e-3, "{architecture:?} with dead {dead:?}: gap {gap}");
    }
}

#[test]
fn tallies_count_each_features_firing_and_the_rows() {
    let ws = Workspace::default();
    let model = sae(Architecture::TopK { k: 2, aux_coefficient: 1.0 }, 5);
    let x = activations(5, 9);
    let mut grads = vec![0.0; model.params().count() + model.d_sae() + 1];
    backward(&model, &ws, &x, None, 1.0, &mut grads);
    let tallies = &grads[model.params().count()..];
    let codes = model.encode(&ws, &x);
    for j in 0..model.d_sae() {
        let fired = (0..5).filter(|&n| codes.row(n).any(|(f, _)| f == j)).count();
        assert_eq!(tallies[j], fired as f32, "feature {j}");
    }
    assert_eq!(tallies[model.d_sae()], 5.0);
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

fn trained_run() -> crate::Run {
    use crate::{Budget, GPTConfig, Run, Settings, TrainConfig};
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..Default::default() };
    let train = TrainConfig { batch_size: 4, max_iters: 30, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
    let mut run = Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap();
    run.train(30, &|| 0.0);
    run
}

/// An autoencoder's weights after `steps` steps on `threads` threads, and its measures.
fn train_features(run: &mut crate::Run, threads: usize, steps: usize) -> (Vec<f32>, crate::run::FeatureMeasures) {
    let config = SaeConfig {
        expansion: 4,
        architecture: Architecture::TopK { k: 4, aux_coefficient: 1.0 },
        ..SaeConfig::top_k(1)
    };
    run.start_features(config, crate::run::sae_recipe(8, steps, 3e-3, 5), threads).unwrap();
    let report = run.train_features(steps, &|| 0.0).unwrap();
    assert_eq!(report.stopped, None);
    let trainer = run.features().unwrap();
    let weights = trainer.model().sae().params().values.iter().flat_map(|v| v.iter().copied()).collect();
    (weights, run.feature_measures(2).unwrap())
}

#[test]
fn an_autoencoder_learns_through_the_trainer_the_same_on_any_number_of_threads() {
    let mut run = trained_run();
    let (_, fresh) = train_features(&mut run, 1, 1);
    let (one, trained) = train_features(&mut run, 1, 150);
    let (two, _) = train_features(&mut run, 2, 150);
    assert_eq!(one, two, "the same weights, bit for bit, on one thread or two");
    assert!(trained.explained_variance > 0.8, "{trained:?}");
    assert!(trained.explained_variance > fresh.explained_variance + 0.2, "{fresh:?} then {trained:?}");
    assert!(trained.l0 <= 4.0 && trained.l0 > 1.0, "{trained:?}");
    assert!(trained.loss_recovered > 0.5 && trained.loss_with_sae < trained.loss_zeroed, "{trained:?}");
    // The decoder's rows stay at unit norm after every step.
    let sae = run.features().unwrap().model().sae();
    for j in 0..sae.d_sae() {
        let norm = sae.direction(j).iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "row {j}: {norm}");
    }
}

#[test]
fn the_views_agree_with_the_passes_they_summarise() {
    let mut run = trained_run();
    train_features(&mut run, 1, 60);
    let index = run.index_features(2).unwrap();
    let sae = run.features().unwrap().model().sae().clone();
    // Firings, density and the card's strongest context agree.
    let list = run.feature_list(&index, crate::run::FeatureOrder::Density);
    let busiest = list[0].feature;
    assert!(list.windows(2).all(|w| w[0].density >= w[1].density));
    let card = run.feature_card(&index, busiest).unwrap();
    assert_eq!(card.histogram.iter().sum::<u32>() as usize, index.firings[busiest].len());
    let top = &card.contexts[0];
    assert_eq!(top.activations[top.at], index.max(busiest));
    assert!(card.promoted[0].logit >= card.suppressed[0].logit);
    // Knocking the busiest feature out changes the loss; knocking out one that never fires does not.
    let knocked = run.knock_out_feature(busiest, 2).unwrap();
    assert_ne!(knocked.loss, knocked.loss_without);
    if let Some(silent) = (0..sae.d_sae()).find(|&j| index.firings[j].is_empty()) {
        let k = run.knock_out_feature(silent, 2).unwrap();
        assert_eq!(k.loss, k.loss_without, "feature {silent} never fires");
    }
    // No strength steers nothing; a strong one changes the draw.
    let config = crate::SampleConfig { prompt: "the ".into(), max_new_tokens: 12, ..Default::default() };
    let calm = run.steer(busiest, 0.0, config.clone()).unwrap();
    assert_eq!(calm.plain, calm.steered);
    let strong = run.steer(busiest, 50.0, config).unwrap();
    assert_eq!(strong.plain, calm.plain);
    assert_ne!(strong.plain, strong.steered);
    // A typed text's features are the encoder's on its activations.
    let at = run.features_at("the lazy dog").unwrap();
    assert_eq!(at.len(), 12);
    assert!(at.iter().all(|t| t.features.len() <= 4 && t.features.windows(2).all(|w| w[0].1 >= w[1].1)));
    assert!(run.features_at("").unwrap_err().to_string().contains("type some text"));
    // Written in SAELens's format and read back, it is the same autoencoder.
    let files = crate::interop::saelens::export_sae(&sae, "test", 16).unwrap();
    let cfg = String::from_utf8(files[0].1.clone()).unwrap();
    let back = crate::interop::saelens::import_sae(&cfg, &files[1].1, 2, 16).unwrap();
    assert_eq!(back.config(), sae.config());
    assert_eq!(back.params().values, sae.params().values);
    let wrong = crate::interop::saelens::import_sae(&cfg, &files[1].1, 2, 8).unwrap_err().to_string();
    assert!(wrong.contains("this model has 8 channels"), "{wrong}");
}
