//! The whole model against PyTorch: fixtures written by `fixtures/make_golden.py` hold nanoGPT's
//! architecture with fixed weights and one batch. Logits, loss, every gradient (from one pass
//! and from a sharded step) and the weights after one clipped AdamW step must match to 1e-5, and
//! so must three steps of `torch.optim.Muon` and of `torch.optim.SGD`.
//! Shared by the native test (`golden.rs`) and the wasm suites, which run it in both wasm builds.

use gpt::optim::{clip_grad_norm, complete, AdamW, Muon, Optimizer, Rates, Sgd};
use gpt::train::Trainable;
use gpt::work::{combine, StepPlan};
use gpt::workspace::Workspace;
use gpt::{Batch, GPTConfig, TrainConfig, GPT};
use ndarray::{ArrayD, IxDyn};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;

/// Three steps of `torch.optim.Muon` with AdamW, embedded for the wasm suites too: with Keller
/// Jordan's Newton–Schulz coefficients (PyTorch's), and with three steps of Polar Express's.
pub const MUON_FIXTURES: [&[u8]; 2] = [
    include_bytes!("../fixtures/golden_muon.safetensors"),
    include_bytes!("../fixtures/golden_muon_polar3.safetensors"),
];

/// Three steps of `torch.optim.SGD` with momentum, embedded for the wasm suites too.
pub const SGD_FIXTURE: &[u8] = include_bytes!("../fixtures/golden_sgd.safetensors");

/// Every fixture, embedded so the wasm suites have them too.
pub const FIXTURES: [(&str, &[u8]); 6] = [
    ("bias", include_bytes!("../fixtures/golden_bias.safetensors")),
    ("nobias", include_bytes!("../fixtures/golden_nobias.safetensors")),
    ("rmsnorm_relu_untied", include_bytes!("../fixtures/golden_rmsnorm_relu_untied.safetensors")),
    ("gelu_tanh_nobias_untied", include_bytes!("../fixtures/golden_gelu_tanh_nobias_untied.safetensors")),
    ("rope_nobias", include_bytes!("../fixtures/golden_rope_nobias.safetensors")),
    ("qknorm_rope_nobias", include_bytes!("../fixtures/golden_qknorm_rope_nobias.safetensors")),
];

struct Fixture<'a> {
    bytes: &'a [u8],
    meta: HashMap<String, String>,
}

impl<'a> Fixture<'a> {
    fn load(bytes: &'a [u8]) -> Fixture<'a> {
        let (_, header) = SafeTensors::read_metadata(bytes).unwrap();
        let meta = header.metadata().clone().unwrap_or_default();
        Fixture { bytes, meta }
    }

    fn f32(&self, name: &str) -> ArrayD<f32> {
        let st = SafeTensors::deserialize(self.bytes).unwrap();
        let t = st.tensor(name).unwrap_or_else(|_| panic!("fixture has no {name}"));
        assert_eq!(t.dtype(), Dtype::F32);
        let values = t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
        ArrayD::from_shape_vec(IxDyn(t.shape()), values).unwrap()
    }

    fn ids(&self, name: &str) -> Vec<usize> {
        let st = SafeTensors::deserialize(self.bytes).unwrap();
        let t = st.tensor(name).unwrap();
        assert_eq!(t.dtype(), Dtype::I64);
        t.data().chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as usize).collect()
    }

    fn json(&self, key: &str) -> serde_json::Value {
        serde_json::from_str(&self.meta[key]).unwrap()
    }

    /// The fixture's model: its config, the model with the fixture's starting weights, and the
    /// parameters' names.
    fn model(&self) -> (GPTConfig, GPT, Vec<String>) {
        let config: GPTConfig = serde_json::from_value(self.json("config")).unwrap();
        let mut model = GPT::new(config.clone(), 0).unwrap();
        let names = model.params().names.clone();
        for n in &names {
            model.params_mut().set(n, self.f32(&format!("param.{n}"))).unwrap();
        }
        (config, model, names)
    }
}

/// Largest elementwise difference, relative to the largest magnitude in `want`.
fn assert_close(what: &str, got: &ArrayD<f32>, want: &ArrayD<f32>, tol: f32) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let scale = want.iter().fold(0f32, |m, x| m.max(x.abs())).max(1e-12);
    let worst = got.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max) / scale;
    assert!(worst <= tol, "{what}: relative difference {worst:e} exceeds {tol:e}");
}

/// Checks the fixture `bytes` (one of [`FIXTURES`]), panicking with what differs.
pub fn check(bytes: &[u8]) {
    let fx = Fixture::load(bytes);
    let (config, mut model, names) = fx.model();
    let (idx, targets) = (fx.ids("idx"), fx.ids("targets"));
    let (b, t) = (idx.len() / config.block_size, config.block_size);

    let logits = model.logits(&idx, b, t).unwrap();
    assert_close("logits", &logits, &fx.f32("logits"), 1e-5);

    let ws = Workspace::default();
    let mut grads = vec![0.0; model.params().count()];
    let batch = Batch { idx: &idx, targets: &targets, b, t };
    let loss = model.loss_and_grad(&ws, batch, None, 1.0, &mut grads).unwrap();
    let want_loss = fx.f32("loss")[[0]];
    assert!((loss - want_loss).abs() <= 1e-5 * want_loss.abs(), "loss {loss} vs PyTorch {want_loss}");
    let check_grads = |what: &str, grads: &mut [f32]| {
        for (n, g) in names.iter().zip(model.params().views_mut(grads)) {
            assert_close(&format!("{what} grad of {n}"), &g.to_owned(), &fx.f32(&format!("grad.{n}")), 1e-5);
        }
    };
    check_grads("whole-batch", &mut grads);

    // The same batch as a training step computes it: in shards (unequal here), summed by tree.
    let ids = |v: &[usize]| v.iter().map(|&i| i as u32).collect();
    let (inputs, targets) = (ids(&idx), ids(&targets));
    let plan = StepPlan { shards: 2, batch_size: b, block_size: t, inputs, targets, dropout_seed: None };
    let partials = gpt::train::partials(&model, &gpt::work::Work::Step(plan), 0..2, &ws, &ws).unwrap();
    let mut root = combine(partials, 2, &ws).unwrap();
    assert!(
        (root.loss as f32 - want_loss).abs() <= 1e-5 * want_loss.abs(),
        "sharded loss {} vs {want_loss}",
        root.loss
    );
    check_grads("sharded", &mut root.grads);

    // The optimizer starts from PyTorch's gradients: the key slice of c_attn.bias has a true
    // gradient of zero (softmax ignores a shift shared by a row), and Adam's g/(|g|+eps) would
    // turn the float noise there into full-size steps of either sign.
    let train = fx.json("train");
    let f = |k: &str| train[k].as_f64().unwrap() as f32;
    let mut grads: Vec<f32> = names.iter().flat_map(|n| fx.f32(&format!("grad.{n}")).into_iter()).collect();
    let norm = clip_grad_norm(&mut grads, f("grad_clip"));
    let want_norm: f32 = fx.meta["grad_norm"].parse().unwrap();
    assert!((norm - want_norm).abs() <= 1e-5 * want_norm, "grad norm {norm} vs PyTorch {want_norm}");
    let mut opt = AdamW::new(model.params(), f("beta1"), f("beta2"), f("weight_decay"));
    let params = model.params_mut();
    opt.step(&mut params.values, &grads, f("learning_rate"));
    for (n, v) in names.iter().zip(&params.values) {
        assert_close(&format!("updated {n}"), v, &fx.f32(&format!("updated.{n}")), 1e-5);
    }
}

/// Checks three clipped steps of Muon (the block matrices) and AdamW (the rest), each on this
/// model's own gradients, against `torch.optim.Muon` and `torch.optim.AdamW`: the weights, Muon's
/// momentum and AdamW's moments after them. A fixture without Newton–Schulz settings has
/// PyTorch's defaults.
pub fn check_muon(bytes: &[u8]) {
    let fx = Fixture::load(bytes);
    let (config, mut model, names) = fx.model();
    let train = fx.json("train");
    let f = |k: &str| train[k].as_f64().unwrap() as f32;
    let settings = TrainConfig {
        beta1: f("beta1"),
        beta2: f("beta2"),
        weight_decay: f("weight_decay"),
        learning_rate: f("learning_rate"),
        grad_clip: f("grad_clip"),
        ..Default::default()
    }
    .with_optimizer(
        "muon",
        serde_json::json!({
            "muon_lr": f("muon_lr"),
            "muon_momentum": f("muon_momentum"),
            "muon_ns_coefficients": train.get("muon_ns_coefficients").cloned().unwrap_or("jordan".into()),
            "muon_ns_steps": train.get("muon_ns_steps").cloned().unwrap_or(5.into()),
        }),
    );
    let mut muon = Muon::new(model.params(), &settings.hyper());
    let hidden: Vec<String> = serde_json::from_value(fx.json("hidden")).unwrap();
    assert_eq!(
        muon.params.iter().map(|&i| names[i].clone()).collect::<Vec<_>>(),
        hidden,
        "Muon trains the block matrices"
    );
    three_steps(&fx, (config, &mut model), &mut muon, &settings);
    for (i, n) in names.iter().enumerate() {
        assert_close(&format!("{n} after 3 steps"), &model.params().values[i], &fx.f32(&format!("updated.{n}")), 1e-5);
        match muon.params.iter().position(|&p| p == i) {
            Some(k) => {
                assert_close(&format!("Muon momentum of {n}"), &muon.buffers[k], &fx.f32(&format!("muon.{n}")), 1e-5)
            }
            None => {
                let adamw = &muon.adamw;
                assert_close(&format!("exp_avg of {n}"), &adamw.m[i], &fx.f32(&format!("exp_avg.{n}")), 1e-5);
                assert_close(&format!("exp_avg_sq of {n}"), &adamw.v[i], &fx.f32(&format!("exp_avg_sq.{n}")), 1e-5);
            }
        }
    }
}

/// Three clipped steps of `optimizer` on the fixture's batches, each on this model's own
/// gradients, at the settings' rate.
fn three_steps(
    fx: &Fixture,
    (config, model): (GPTConfig, &mut GPT),
    optimizer: &mut dyn Optimizer,
    settings: &TrainConfig,
) {
    let ws = Workspace::default();
    for step in 0..3 {
        let (idx, targets) = (fx.ids(&format!("idx{step}")), fx.ids(&format!("targets{step}")));
        let (b, t) = (idx.len() / config.block_size, config.block_size);
        let mut grads = vec![0.0; model.params().count()];
        let batch = Batch { idx: &idx, targets: &targets, b, t };
        model.loss_and_grad(&ws, batch, None, 1.0, &mut grads).unwrap();
        clip_grad_norm(&mut grads, settings.grad_clip);
        let mut pieces = optimizer.begin(&model.params().values, &grads);
        complete(optimizer.kind(), settings.hyper().own, pieces.iter_mut().collect(), 1);
        let rates = Rates { lr: settings.learning_rate, scale: 1.0 };
        optimizer.finish(&mut model.params_mut().values, &grads, rates, pieces);
    }
}

/// Checks three clipped steps of SGD with momentum against `torch.optim.SGD` in nanoGPT's groups
/// (weight decay on the 2-D tensors only): the weights and the momentum buffers after them.
pub fn check_sgd() {
    let fx = Fixture::load(SGD_FIXTURE);
    let (config, mut model, names) = fx.model();
    let train = fx.json("train");
    let f = |k: &str| train[k].as_f64().unwrap() as f32;
    let settings = TrainConfig {
        weight_decay: f("weight_decay"),
        learning_rate: f("learning_rate"),
        grad_clip: f("grad_clip"),
        ..Default::default()
    }
    .with_optimizer("sgd", serde_json::json!({"sgd_momentum": f("sgd_momentum")}));
    let mut sgd = Sgd::new(model.params(), &settings.hyper());
    three_steps(&fx, (config, &mut model), &mut sgd, &settings);
    for (i, n) in names.iter().enumerate() {
        assert_close(&format!("{n} after 3 steps"), &model.params().values[i], &fx.f32(&format!("updated.{n}")), 1e-5);
        let buffer = fx.f32(&format!("momentum_buffer.{n}"));
        assert_close(&format!("SGD momentum of {n}"), &sgd.buffers[i], &buffer, 1e-5);
    }
}
