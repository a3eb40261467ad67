//! The whole model against PyTorch: fixtures written by `fixtures/make_golden.py` hold nanoGPT's
//! architecture with fixed weights and one batch. Logits, loss, every gradient and the weights
//! after one clipped AdamW step must match.

use gpt::optim::{clip_grad_norm, AdamW};
use gpt::{GPTConfig, GPT};
use ndarray::{ArrayD, IxDyn};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;

struct Fixture {
    bytes: Vec<u8>,
    meta: HashMap<String, String>,
}

impl Fixture {
    fn load(name: &str) -> Fixture {
        let path = format!("{}/tests/fixtures/golden_{name}.safetensors", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
        let meta = header.metadata().clone().unwrap_or_default();
        Fixture { bytes, meta }
    }

    fn f32(&self, name: &str) -> ArrayD<f32> {
        let st = SafeTensors::deserialize(&self.bytes).unwrap();
        let t = st.tensor(name).unwrap_or_else(|_| panic!("fixture has no {name}"));
        assert_eq!(t.dtype(), Dtype::F32);
        let values = t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
        ArrayD::from_shape_vec(IxDyn(t.shape()), values).unwrap()
    }

    fn ids(&self, name: &str) -> Vec<usize> {
        let st = SafeTensors::deserialize(&self.bytes).unwrap();
        let t = st.tensor(name).unwrap();
        assert_eq!(t.dtype(), Dtype::I64);
        t.data().chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as usize).collect()
    }

    fn json(&self, key: &str) -> serde_json::Value {
        serde_json::from_str(&self.meta[key]).unwrap()
    }
}

/// Largest elementwise difference, relative to the largest magnitude in `want`.
fn assert_close(what: &str, got: &ArrayD<f32>, want: &ArrayD<f32>, tol: f32) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let scale = want.iter().fold(0f32, |m, x| m.max(x.abs())).max(1e-12);
    let worst = got.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max) / scale;
    assert!(worst <= tol, "{what}: relative difference {worst:e} exceeds {tol:e}");
}

fn check(name: &str) {
    let fx = Fixture::load(name);
    let config: GPTConfig = serde_json::from_value(fx.json("config")).unwrap();
    let mut model = GPT::new(config.clone(), 0).unwrap();
    let names = model.params().names.clone();
    for n in &names {
        model.params_mut().set(n, fx.f32(&format!("param.{n}"))).unwrap();
    }
    let (idx, targets) = (fx.ids("idx"), fx.ids("targets"));
    let (b, t) = (idx.len() / config.block_size, config.block_size);

    let logits = model.logits(&idx, b, t).unwrap();
    assert_close("logits", &logits, &fx.f32("logits"), 1e-5);

    let loss = model.loss_and_grad(&idx, &targets, b, t, None).unwrap();
    let want_loss = fx.f32("loss")[[0]];
    assert!((loss - want_loss).abs() <= 1e-5 * want_loss.abs(), "loss {loss} vs PyTorch {want_loss}");
    for (n, g) in names.iter().zip(&model.params().grads) {
        assert_close(&format!("grad of {n}"), g, &fx.f32(&format!("grad.{n}")), 1e-5);
    }

    // The optimizer starts from PyTorch's gradients: the key slice of c_attn.bias has a true
    // gradient of zero (softmax ignores a shift shared by a row), and Adam's g/(|g|+eps) would
    // turn the float noise there into full-size steps of either sign.
    let train = fx.json("train");
    let f = |k: &str| train[k].as_f64().unwrap() as f32;
    let params = model.params_mut();
    for (n, g) in names.iter().zip(params.grads.iter_mut()) {
        *g = fx.f32(&format!("grad.{n}"));
    }
    let norm = clip_grad_norm(&mut params.grads, f("grad_clip"));
    let want_norm: f32 = fx.meta["grad_norm"].parse().unwrap();
    assert!((norm - want_norm).abs() <= 1e-5 * want_norm, "grad norm {norm} vs PyTorch {want_norm}");
    let mut opt = AdamW::new(&params.values, f("beta1"), f("beta2"), f("weight_decay"));
    opt.step(&mut params.values, &params.grads, f("learning_rate"));
    for (n, v) in names.iter().zip(&params.values) {
        assert_close(&format!("updated {n}"), v, &fx.f32(&format!("updated.{n}")), 1e-5);
    }
}

#[test]
fn matches_pytorch_with_bias() {
    check("bias");
}

#[test]
fn matches_pytorch_without_bias() {
    check("nobias");
}

#[test]
fn matches_pytorch_rmsnorm_relu_untied() {
    check("rmsnorm_relu_untied");
}

#[test]
fn matches_pytorch_gelu_tanh_untied() {
    check("gelu_tanh_nobias_untied");
}
