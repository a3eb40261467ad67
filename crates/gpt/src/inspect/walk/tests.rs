//! The walk's stages against what they must equal by construction, on every kind of model; and a
//! run trained with the walk open against one trained without it, bit for bit.

use super::WalkRequest;
use crate::data::TaskConfig;
use crate::ops::{Activation, NormKind};
use crate::{Budget, GPTConfig, Run, Settings, TrainConfig};

fn text_run(model: GPTConfig) -> Run {
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..model };
    let train = TrainConfig { batch_size: 4, max_iters: 20, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
    let mut run = Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap();
    for _ in 0..3 {
        run.step(&|| 0.0).unwrap();
    }
    run
}

fn stage<'a>(walk: &'a super::Walk, hook: &str, title: &str) -> &'a super::Stage {
    walk.forward.iter().find(|s| s.hook == hook && s.title.contains(title)).unwrap_or_else(|| panic!("{hook} {title}"))
}

fn close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= 1e-5 * (1.0 + y.abs()), "{what}[{i}]: {x} vs {y}");
    }
}

#[test]
fn each_stage_is_what_the_one_before_makes_of_it_on_every_kind_of_model() {
    let variants = [
        GPTConfig::default(),
        GPTConfig {
            rope: true,
            qk_norm: true,
            norm: NormKind::RmsNorm,
            activation: Activation::Relu,
            ..Default::default()
        },
        GPTConfig { tie_weights: false, bias: true, ..Default::default() },
    ];
    for model in variants {
        let run = text_run(model);
        let walk = run.walk(&WalkRequest::default()).unwrap();
        let f = &walk.followed;
        let (t, p, hs) = (f.ids.len(), f.position, 16 / 2);
        assert_eq!((t, p), (15, 14), "the start of the held-out text (a token kept to teach), its last position");
        let l = f.layer;
        let name = |hook: &str| format!("blocks.{l}.{hook}");
        // The residual stream is the sum of what came before.
        let normalised = stage(&walk, &name("ln1.hook_normalized"), "Normalised before attention");
        let mean = normalised.values.iter().sum::<f32>() / normalised.values.len() as f32;
        let square = normalised.values.iter().map(|x| x * x).sum::<f32>() / normalised.values.len() as f32;
        assert!(square > 0.9 && square <= 1.0 && !normalised.notes.is_empty(), "{square}");
        if run.model().config().norm == NormKind::LayerNorm {
            assert!(mean.abs() < 1e-5, "a LayerNorm centres: {mean}");
        }
        let mid = &stage(&walk, &name("hook_resid_mid"), "").values;
        let post = &stage(&walk, &name("hook_resid_post"), "Residual add after the MLP").values;
        let mlp = &stage(&walk, &name("hook_mlp_out"), "").values;
        let sum: Vec<f32> = mid.iter().zip(mlp).map(|(a, b)| a + b).collect();
        close(&sum, post, "resid_post = resid_mid + mlp_out");
        // The softmax of the scores' row is the pattern's row; the weighted sum of values is z.
        let scores = &stage(&walk, &name("attn.hook_attn_scores"), "").values;
        let pattern = &stage(&walk, &name("attn.hook_pattern"), "").values;
        let row = &scores[p * t..p * t + p + 1];
        let max = row.iter().cloned().fold(f32::MIN, f32::max);
        let total: f32 = row.iter().map(|s| (s - max).exp()).sum();
        let softmax: Vec<f32> = row.iter().map(|s| (s - max).exp() / total).collect();
        close(&softmax, &pattern[p * t..p * t + p + 1], "softmax(scores) = pattern");
        let v = &stage(&walk, &name("attn.hook_v"), "").values;
        let z: Vec<f32> = (0..hs).map(|d| (0..=p).map(|j| pattern[p * t + j] * v[j * hs + d]).sum()).collect();
        close(&z, &stage(&walk, &name("attn.hook_z"), "Weighted sum").values, "z = pattern · v");
        let pre = &stage(&walk, &name("mlp.hook_pre"), "").values;
        let post = &stage(&walk, &name("mlp.hook_post"), "").values;
        if run.model().config().activation == Activation::Relu {
            close(&pre.iter().map(|x| x.max(0.0)).collect::<Vec<_>>(), post, "post = relu(pre)");
        }
        // The draw's probabilities add up to 1 and it names the token the backward pass teaches.
        let drawn: f32 = walk.draw.likeliest.iter().map(|t| t.prob).sum();
        assert!(drawn <= 1.0 + 1e-5 && walk.draw.likeliest[0].prob >= walk.draw.picked.prob - 1e-6);
        let b = &walk.backward;
        assert!((b.loss + b.target.prob.ln()).abs() < 1e-4, "loss {} = −ln {}", b.loss, b.target.prob);
        assert!(b.stages.iter().all(|s| s.values.iter().all(|x| x.is_finite())));
        assert!(b.params.iter().all(|s| s.update_norm.is_finite()) && b.params.iter().any(|s| s.update_norm > 0.0));
        assert!(b.loss_after.is_finite() && b.lr > 0.0);
    }
}

#[test]
fn the_walk_follows_what_it_is_asked_and_says_what_it_cannot() {
    let run = text_run(GPTConfig::default());
    let asked = WalkRequest {
        text: "the lazy dog".into(),
        position: Some(4),
        layer: Some(0),
        head: Some(1),
        target: "q".into(),
        temperature: 0.0,
        ..Default::default()
    };
    let walk = run.walk(&asked).unwrap();
    let f = &walk.followed;
    assert_eq!((f.position, f.layer, f.head, f.target.token.as_str()), (4, 0, 1, "q"));
    assert_eq!(walk.draw.picked.id, walk.draw.likeliest[0].id, "temperature 0 draws the likeliest");
    let refused = |request: WalkRequest, why: &str| {
        let error = run.walk(&request).unwrap_err().to_string();
        assert!(error.contains(why), "{error}");
    };
    refused(
        WalkRequest { text: "the dog".into(), position: Some(9), ..Default::default() },
        "past the sequence's last",
    );
    refused(WalkRequest { layer: Some(5), head: Some(0), ..Default::default() }, "not in the model");
    refused(WalkRequest { target: "the".into(), ..Default::default() }, "one token");
    refused(WalkRequest { text: "QQQ".into(), ..Default::default() }, "Q");
}

#[test]
fn a_task_run_follows_a_held_out_problem_to_its_first_answer_token() {
    let task = TaskConfig::new(crate::task_named("reverse").unwrap(), serde_json::json!({"length": 4}), 0.5);
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, rope: true, ..Default::default() };
    let settings = Settings { model, task: Some(task), ..Default::default() };
    let run = Run::create(&settings, "", &Budget::UNLIMITED).unwrap();
    let walk = run.walk(&WalkRequest::default()).unwrap();
    let f = &walk.followed;
    assert_eq!(f.tokens[f.position], ">", "the prompt's last token");
    let problem = run.task().unwrap().parse(&f.text, 16).unwrap();
    assert_eq!(f.target.id, problem.answer()[0], "the first answer token");
}

#[test]
fn training_with_the_walk_open_is_bit_for_bit_training_without_it() {
    let (mut open, mut closed) = (text_run(GPTConfig::default()), text_run(GPTConfig::default()));
    for _ in 0..4 {
        open.walk(&WalkRequest::default()).unwrap();
        open.step(&|| 0.0).unwrap();
        closed.step(&|| 0.0).unwrap();
    }
    open.walk(&WalkRequest::default()).unwrap();
    assert_eq!(open.history().losses, closed.history().losses);
    assert_eq!(open.model().params().values, closed.model().params().values);
    assert_eq!(open.optimizer().state(), closed.optimizer().state());
    assert_eq!(open.rng(), closed.rng());
}

#[test]
fn a_muon_run_shows_muons_update_on_a_copy() {
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..Default::default() };
    let train = TrainConfig { batch_size: 4, max_iters: 20, warmup_iters: 2, eval_iters: 1, ..Default::default() }
        .with_optimizer("muon", serde_json::Value::Null);
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
    let mut run = Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap();
    run.step(&|| 0.0).unwrap();
    let before = run.model().params().values.clone();
    let walk = run.walk(&WalkRequest::default()).unwrap();
    assert_eq!(walk.backward.optimizer, "muon");
    let c_attn = walk.backward.params.iter().find(|p| p.name.ends_with("0.attn.c_attn.weight")).unwrap();
    assert!(c_attn.update_norm > 0.0 && c_attn.update_norm.is_finite());
    assert_eq!(run.model().params().values, before, "the run does not move");
}
