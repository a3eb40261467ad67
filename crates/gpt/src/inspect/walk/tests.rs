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
    walk.forward
        .iter()
        .find(|s| s.hooks == [hook] && s.title.english.contains(title))
        .unwrap_or_else(|| panic!("{hook} {title}"))
}

fn backward_stage<'a>(walk: &'a super::Walk, hook: &str) -> &'a super::Stage {
    walk.backward.stages.iter().find(|s| s.hooks == [hook]).unwrap_or_else(|| panic!("{hook}"))
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
        let scores = &walk.forward.iter().find(|s| s.title.english.starts_with("Scores q·k")).unwrap().values;
        let pattern = &stage(&walk, &name("attn.hook_pattern"), "").values;
        let row = &scores[p * t..p * t + p + 1];
        let max = row.iter().cloned().fold(f32::MIN, f32::max);
        let total: f32 = row.iter().map(|s| (s - max).exp()).sum();
        let softmax: Vec<f32> = row.iter().map(|s| (s - max).exp() / total).collect();
        close(&softmax, &pattern[p * t..p * t + p + 1], "softmax(scores) = pattern");
        let v = &walk.forward.iter().find(|s| s.title.english.starts_with("Values, head")).unwrap().values;
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
        assert!(b.loss_after.is_finite() && b.rates.iter().all(|r| r.lr > 0.0));
    }
}

#[test]
fn every_stage_is_labelled_by_the_hooks_its_rows_hold() {
    for model in [GPTConfig::default(), GPTConfig { rope: true, qk_norm: true, ..Default::default() }] {
        let run = text_run(model);
        let (opened, other) = (
            WalkRequest { layer: Some(1), head: Some(0), ..Default::default() },
            WalkRequest { layer: Some(0), head: Some(0), ..Default::default() },
        );
        let (walk, other) = (run.walk(&opened).unwrap(), run.walk(&other).unwrap());
        // A closed block's three rows: what its attention adds, what its MLP adds, the stream after,
        // each labelled by its own hook and equal to that hook's stage where the block is opened.
        let closed = walk.forward.iter().find(|s| s.title.english.starts_with("Block 1 ")).unwrap();
        let hooks = ["blocks.0.hook_attn_out", "blocks.0.hook_mlp_out", "blocks.0.hook_resid_post"];
        assert_eq!(closed.hooks, hooks);
        for (r, hook) in hooks.iter().enumerate() {
            let open = other.forward.iter().find(|s| s.hooks == [*hook]).unwrap();
            assert_eq!(&closed.values[r * closed.cols..(r + 1) * closed.cols], &open.values[..], "{hook}");
        }
        // TransformerLens's names only (python/check_walk.py finds each in its cache): the ids it
        // is given, the logits it returns, and what lies between.
        assert_eq!(walk.forward[0].hooks, ["embed.hook_in"]);
        assert_eq!(walk.forward.last().unwrap().hooks, ["unembed.hook_out"]);
        assert_eq!(walk.backward.stages[0].hooks, ["unembed.hook_out"]);
        let all = walk.forward.iter().chain(&walk.backward.stages).flat_map(|s| &s.hooks);
        for hook in all {
            let block = hook.strip_prefix("blocks.").and_then(|rest| rest.split_once('.'));
            let known = ["embed.hook_in", "hook_embed", "hook_pos_embed", "unembed.hook_out"].contains(&&hook[..])
                || hook.starts_with("ln_final.hook_")
                || block.is_some_and(|(l, _)| l.parse::<usize>().is_ok());
            assert!(known && hook.contains("hook_"), "{hook}");
        }
        // Token ids are whole numbers; the scores above the diagonal are −∞, as TransformerLens
        // holds them, and the pattern 0 there.
        assert!(walk.forward[0].whole && !walk.forward[1].whole);
        let t = walk.followed.ids.len();
        let scores = walk.forward.iter().find(|s| s.title.english.starts_with("Scores q·k")).unwrap();
        let pattern = stage(&walk, "blocks.1.attn.hook_pattern", "");
        for i in 0..t {
            for j in 0..t {
                let (s, p) = (scores.values[i * t + j], pattern.values[i * t + j]);
                assert_eq!(s == f32::NEG_INFINITY, j > i, "score {i},{j}: {s}");
                assert!(j <= i || p == 0.0, "pattern {i},{j}: {p}");
            }
        }
        // Back through the queries and keys: the code names RoPE's and QK-norm's lines.
        for part in ["queries", "keys"] {
            let into = walk
                .backward
                .stages
                .iter()
                .find(|s| s.title.english == format!("Into the head's {part}, every position"));
            let code = &into.unwrap().code;
            assert_eq!(code.contains("rotary(q)"), run.model().config().rope, "{code}");
            assert_eq!(code.contains("rms_norm"), run.model().config().qk_norm, "{code}");
        }
    }
}

#[test]
fn the_backward_pass_shows_the_activation_the_model_has_and_the_gradients_as_clipped() {
    for activation in [Activation::Gelu, Activation::GeluTanh, Activation::Relu] {
        let run = text_run(GPTConfig { activation, ..Default::default() });
        let walk = run.walk(&WalkRequest::default()).unwrap();
        let l = walk.followed.layer;
        let hook = |h: &str| format!("blocks.{l}.{h}");
        let forward = &stage(&walk, &hook("mlp.hook_post"), "").code;
        assert_eq!(&backward_stage(&walk, &hook("mlp.hook_pre")).code, forward, "{activation:?}");
        // The target's probability is at temperature 1, where the loss is counted.
        let f = &walk.followed;
        let probs = crate::sample::next_token_probs(run.model(), &f.ids[..=f.position], 1.0).unwrap();
        assert_eq!(walk.backward.target.prob, probs[f.target.id as usize]);
        // The gradients shown are before clipping; where the step clipped, each says both norms.
        let b = &walk.backward;
        let clip = crate::optim::clip_coefficient(b.grad_norm, b.grad_clip);
        assert_eq!(b.clip_scale, clip);
        let z = backward_stage(&walk, &hook("attn.hook_z"));
        let norm = z.values.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert_eq!(z.notes[0].value, norm);
        if clip < 1.0 {
            assert_eq!(z.notes[1].value, norm * clip, "{:?}", z.notes);
        } else {
            assert_eq!(z.notes.len(), 1);
        }
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
    // Each optimiser's own rate: AdamW's along the schedule, Muon's (0.02 at the peak) scaled by
    // the same share, and each Muon matrix's by its shape.
    let adamw_lr = run.train_config().schedule().lr(run.step_count());
    let share = adamw_lr / run.train_config().learning_rate;
    let rates: Vec<(&str, f32, usize, bool)> =
        walk.backward.rates.iter().map(|r| (&r.optimizer[..], r.lr, r.weights, r.shape_scaled)).collect();
    let rest = walk.backward.params.len() - 8; // embeddings, norms and biases
    assert_eq!(rates, [("adamw", adamw_lr, rest, false), ("muon", 0.02 * share, 8, true)]);
    let rate =
        |name: &str| walk.backward.params.iter().find(|p| p.name.ends_with(name)).map(|p| (&p.optimizer[..], p.lr));
    assert_eq!(rate("0.attn.c_attn.weight"), Some(("muon", 0.02 * share * 3f32.sqrt())), "(3C, C): √3");
    assert_eq!(rate("0.mlp.c_fc.weight"), Some(("muon", 0.02 * share * 2.0)), "(4C, C): 2");
    assert_eq!(rate("0.mlp.c_proj.weight"), Some(("muon", 0.02 * share)), "(C, 4C): 1");
    assert_eq!(rate("0.ln_1.weight"), Some(("adamw", adamw_lr)));
}
