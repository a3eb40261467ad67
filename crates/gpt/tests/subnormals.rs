//! No subnormal floats, however badly a run trains. Many CPUs take a hundred times longer over
//! an operation on a subnormal, and neither wasm nor the CLI flushes them, so a run at too high
//! a learning rate (saturated softmaxes and GELUs, weights that stop learning) trained nine
//! times slower than a healthy one. These tests count them where they used to arise.

use gpt::optim::{complete, AdamW, Muon, Optimizer, Rates, Sgd};
use gpt::train::Trainable;
use gpt::workspace::Workspace;
use gpt::{Batch, GPTConfig, TrainConfig, GPT};

fn subnormals(xs: &[f32]) -> usize {
    xs.iter().filter(|x| x.is_subnormal()).count()
}

/// A model driven into saturation, as a learning rate of 0.3 leaves one: attention scores and
/// MLP inputs tens of units wide, so softmaxes are one-hot and GELUs flat.
fn saturated(config: GPTConfig) -> GPT {
    let config = GPTConfig { vocab_size: 27, block_size: 16, n_layer: 2, n_head: 2, n_embd: 32, ..config };
    let mut model = GPT::new(config, 3).unwrap();
    let params = model.params_mut();
    for (name, value) in params.names.iter().zip(params.values.iter_mut()) {
        if name.ends_with("c_attn.weight") || name.ends_with("c_fc.weight") || name.ends_with("wte.weight") {
            value.mapv_inplace(|w| w * 60.0);
        }
    }
    model
}

#[test]
fn a_saturated_model_computes_no_subnormal_value_or_gradient() {
    let idx: Vec<usize> = (0..64).map(|i| (i * 7 + i / 5) % 27).collect();
    let targets: Vec<usize> = idx.iter().map(|i| (i * 3 + 1) % 27).collect();
    for (config, name) in [
        (GPTConfig::default(), "GELU"),
        (GPTConfig { rope: true, qk_norm: true, ..GPTConfig::default() }, "RoPE and QK-norm"),
        (GPTConfig { activation: gpt::ops::Activation::GeluTanh, ..GPTConfig::default() }, "tanh GELU"),
    ] {
        let model = saturated(config);
        let mut grads = vec![0.0; model.params().count()];
        let batch = Batch { idx: &idx, targets: &targets, b: 4, t: 16 };
        let loss = model.loss_and_grad(&Workspace::default(), batch, None, 1.0, &mut grads).unwrap();
        assert!(loss.is_finite() && loss > 5.0, "saturated: loss {loss}");
        assert_eq!(subnormals(&grads), 0, "parameter gradients of {name}");
        // Every value the pass computes and the loss's gradient there, the attention too.
        let hooked = model.hooked(&idx[..16], Some((15, targets[15]))).unwrap();
        assert_eq!(subnormals(&hooked.pattern), 0, "attention probabilities of {name}");
        assert_eq!(subnormals(&hooked.param_grads), 0, "one position's parameter gradients of {name}");
        for value in &hooked.values {
            let in_grads = value.grads.as_deref().map_or(0, subnormals);
            assert_eq!((subnormals(&value.values), in_grads), (0, 0), "{} of {name}", value.name);
        }
    }
}

#[test]
fn the_moments_of_weights_that_stop_learning_stay_normal() {
    let model =
        GPT::new(GPTConfig { vocab_size: 5, block_size: 4, n_layer: 1, n_head: 1, n_embd: 4, ..Default::default() }, 1)
            .unwrap();
    let mut params = model.params().values.clone();
    let once: Vec<f32> = (0..model.params().count()).map(|i| 1e-3 * (1.0 + i as f32 % 3.0)).collect();
    let zeros = vec![0.0; once.len()];
    // β₁ = 0.9 takes a moment of 1e-4 below f32's normal range after about 800 steps.
    let mut adamw = AdamW::new(model.params(), 0.9, 0.99, 0.1);
    let settings = TrainConfig::default().with_optimizer("muon", serde_json::json!({}));
    let mut muon = Muon::new(model.params(), &settings.hyper());
    let mut muon_params = params.clone();
    // SGD's buffer shrinks by its momentum each step (no weight decay to feed it).
    let sgd_settings = TrainConfig { weight_decay: 0.0, ..TrainConfig::default() }
        .with_optimizer("sgd", serde_json::json!({"sgd_momentum": 0.9}));
    let mut sgd = Sgd::new(model.params(), &sgd_settings.hyper());
    let mut sgd_params = params.clone();
    for step in 0..2000 {
        let grads = if step == 0 { &once } else { &zeros };
        adamw.step(&mut params, grads, 1e-3);
        let mut pieces = muon.begin(&muon_params, grads);
        complete(muon.kind(), settings.hyper().own, pieces.iter_mut().collect(), 1);
        muon.finish(&mut muon_params, grads, Rates { lr: 1e-3, scale: 1.0 }, pieces);
        sgd.step(&mut sgd_params, grads, 1e-3);
        let count =
            |arrays: &[ndarray::ArrayD<f32>]| arrays.iter().map(|a| subnormals(a.as_slice().unwrap())).sum::<usize>();
        assert_eq!(count(&adamw.m) + count(&adamw.v) + count(&params), 0, "AdamW after step {step}");
        assert_eq!(count(&muon.buffers) + count(&muon.adamw.m) + count(&muon_params), 0, "Muon after step {step}");
        assert_eq!(count(&sgd.buffers) + count(&sgd_params), 0, "SGD after step {step}");
    }
}
