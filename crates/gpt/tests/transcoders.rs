//! A transcoder per MLP, trained together through a run: the set's loss and gradient are each
//! layer's lone transcoder's over its variance; it learns the same on any number of threads; and
//! the replacement model is the model with each MLP's output replaced by its transcoder's.

use gpt::model::HookPoint;
use gpt::sae::{Architecture, Sae, SaeConfig, SaeTrainee, Transcoders, NAMES};
use gpt::train::Trainable;
use gpt::workspace::Workspace;
use std::sync::Arc;

fn trained_run(n_layer: usize) -> gpt::Run {
    run_trained_for(n_layer, 30)
}

fn run_trained_for(n_layer: usize, steps: usize) -> gpt::Run {
    use gpt::{Budget, GPTConfig, Run, Settings, TrainConfig};
    let model = GPTConfig { block_size: 16, n_layer, n_head: 2, n_embd: 16, ..Default::default() };
    let train = TrainConfig { batch_size: 4, max_iters: 30, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
    let mut run = Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap();
    run.train(steps, &|| 0.0).unwrap();
    run
}

#[test]
fn transcoders_on_a_barely_trained_model_start_far_above_guessing_and_are_not_called_diverged() {
    // Its MLPs write almost nothing yet: the fresh transcoders' first loss is many times a guess
    // of each output's mean, and that is where they start, not a blow-up.
    let mut run = run_trained_for(4, 1);
    run.start_transcoders(small(), gpt::sae::recipe(8, 40, 1e-3, 5), 1).unwrap();
    let report = run.train_transcoders(40, &|| 0.0).unwrap();
    assert_eq!(report.stopped, None, "{report:?}");
    let losses = &run.transcoders().unwrap().history().losses;
    let guess = 4.0;
    assert!(losses[0] > 3.0 * guess + 10.0, "the first loss is past the bound a later one must keep: {losses:?}");
    assert!(losses[39] < guess, "{losses:?}");
}

fn small() -> SaeConfig {
    SaeConfig {
        expansion: 4,
        architecture: Architecture::TopK { k: 4, aux_coefficient: 1.0 },
        ..SaeConfig::transcoder(0)
    }
}

/// `set`, its skip connections (if it has them) away from their zero start.
fn with_skip(set: Transcoders) -> Transcoders {
    let count = set.config().tensor_count();
    let mut params = set.params().clone();
    for (k, value) in params.values.iter_mut().enumerate().filter(|(k, _)| k % count == 4) {
        value.iter_mut().enumerate().for_each(|(i, w)| *w = 0.05 * ((i * 7 + k) % 11) as f32 - 0.25);
    }
    Transcoders::from_params(*set.config(), set.layers(), set.d_in(), params).unwrap()
}

#[test]
fn a_sets_loss_and_gradient_are_each_lone_transcoders_over_its_variance() {
    for skip in [false, true] {
        sets_loss_is_lone_transcoders(SaeConfig { skip, ..small() });
    }
}

fn sets_loss_is_lone_transcoders(small: SaeConfig) {
    let small = || small;
    let run = trained_run(2);
    let model = Arc::new(gpt::GPT::new(run.model().config().clone(), 0).unwrap());
    let c = model.config().clone();
    let set = with_skip(Transcoders::new(small(), c.n_layer, c.n_embd, 3).unwrap());
    let variances = [2.0, 0.5];
    let trainee = SaeTrainee::of(set.clone(), model.clone(), 0, variances.to_vec()).unwrap();
    let ws = Workspace::default();
    let (b, t) = (2, 8);
    let idx: Vec<usize> = (0..b * t).map(|i| (i * 7) % c.vocab_size).collect();
    let targets = vec![0; b * t];
    let batch = gpt::Batch { idx: &idx, targets: &targets, b, t };
    let mut grads = vec![0.0; trainee.grad_len()];
    let loss = trainee.loss_and_grad(&ws, batch, None, 1.0, &mut grads).unwrap();
    let (mut expected, mut at) = (0.0, 0);
    for (layer, variance) in variances.iter().enumerate() {
        let count = small().tensor_count();
        let values = set.params().values[layer * count..(layer + 1) * count].to_vec();
        let params = gpt::params::Params { names: NAMES[..count].iter().map(|n| n.to_string()).collect(), values };
        let config =
            SaeConfig { point: HookPoint::MlpIn { layer }, output: Some(HookPoint::MlpOut { layer }), ..small() };
        let lone =
            SaeTrainee::new(Sae::from_params(config, c.n_layer, c.n_embd, params).unwrap(), model.clone(), 0, 1.0);
        let lone = lone.unwrap();
        let mut lone_grads = vec![0.0; lone.grad_len()];
        expected += lone.loss_and_grad(&ws, batch, None, 1.0, &mut lone_grads).unwrap() / variance;
        let n = lone.params().count();
        for (i, (&got, &want)) in grads[at..at + n].iter().zip(&lone_grads[..n]).enumerate() {
            assert!((got - want / variance).abs() <= 1e-5 * (1.0 + want.abs()), "layer {layer}, {i}: {got} vs {want}");
        }
        at += n;
    }
    assert!((loss - expected).abs() < 1e-5 * expected, "{loss} vs {expected}");
    // Each layer's firings, each layer's least firing activation and whether it had one, then the tokens.
    assert_eq!(grads.len(), at + 2 * set.layer(0).d_sae() + 2 * 2 + 1);
    assert_eq!(*grads.last().unwrap(), (b * t) as f32);
}

#[test]
fn transcoders_learn_the_same_on_any_number_of_threads_and_stand_in_for_the_mlps() {
    let mut run = trained_run(2);
    let mut train = |threads: usize, steps: usize| {
        run.start_transcoders(small(), gpt::sae::recipe(8, steps, 3e-3, 5), threads).unwrap();
        assert_eq!(run.train_transcoders(steps, &|| 0.0).unwrap().stopped, None);
        let weights: Vec<f32> =
            run.transcoders().unwrap().model().dictionaries().params().values.iter().flatten().copied().collect();
        (weights, run.transcoder_measures(2).unwrap())
    };
    let (_, fresh) = train(1, 1);
    let (one, trained) = train(1, 150);
    let (two, _) = train(2, 150);
    assert_eq!(one, two, "the same weights, bit for bit, on one thread or two");
    for (layer, (before, after)) in fresh.layers.iter().zip(&trained.layers).enumerate() {
        assert!(
            after.normalized_mse < 0.5 && after.normalized_mse < before.normalized_mse,
            "layer {layer}: {before:?} then {after:?}"
        );
        assert!((after.normalized_mse + after.explained_variance - 1.0).abs() < 1e-6);
    }
    assert!(trained.kl < fresh.kl && trained.top1_agreement >= fresh.top1_agreement, "{fresh:?} then {trained:?}");
    assert!(trained.top1_agreement > 0.5 && trained.tokens > 0, "{trained:?}");
}

#[test]
fn the_replacement_model_is_the_model_with_each_mlps_output_its_transcoders() {
    for skip in [false, true] {
        replacement_is_the_model_with_transcoders(skip);
    }
}

/// One block: what the MLP reads does not depend on the replacement, so replacing the MLP's
/// output by the transcoder's (from the clean pass's input) must give the same logits.
fn replacement_is_the_model_with_transcoders(skip: bool) {
    let run = trained_run(1);
    let model = run.model();
    let c = model.config();
    let set = with_skip(Transcoders::new(SaeConfig { skip, ..small() }, c.n_layer, c.n_embd, 9).unwrap());
    let ws = Workspace::default();
    let (b, t) = (2, 8);
    let idx: Vec<usize> = (0..b * t).map(|i| (i * 5 + 1) % c.vocab_size).collect();
    let replaced = model.rewired_logits(&idx, (b, t), None, &mut set.replacement(&ws)).unwrap();
    let input = model.activations(&ws, &idx, b, t, HookPoint::MlpIn { layer: 0 }).unwrap();
    let transcoder = set.layer(0);
    let out = transcoder.output(&input, &transcoder.encode(&ws, &input));
    let expected =
        model.logits_replaced(&idx, b, t, HookPoint::MlpOut { layer: 0 }, &mut |v| v.copy_from_slice(&out)).unwrap();
    let clean = model.logits(&idx, b, t).unwrap();
    for (r, e) in replaced.iter().zip(&expected) {
        assert!((r - e).abs() < 1e-5, "{r} vs {e}");
    }
    assert!(
        replaced.iter().zip(clean.iter()).any(|(r, cl)| (r - cl).abs() > 1e-3),
        "a fresh transcoder changes the logits"
    );
}

#[test]
fn transcoders_saved_part_way_train_on_as_if_they_never_stopped() {
    for skip in [false, true] {
        saved_part_way_trains_on(SaeConfig { skip, ..small() });
    }
}

fn saved_part_way_trains_on(small: SaeConfig) {
    let small = || small;
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
    let weights = |run: &gpt::Run| -> Vec<f32> {
        let trainer = run.transcoders().unwrap();
        trainer.model().dictionaries().params().values.iter().flatten().copied().collect()
    };
    let mut run = trained_run(2);
    run.start_transcoders(small(), gpt::sae::recipe(8, 20, 3e-3, 5), 1).unwrap();
    run.train_transcoders(20, &|| 0.0).unwrap();
    let straight = weights(&run);
    let mut run = trained_run(2);
    run.start_transcoders(small(), gpt::sae::recipe(8, 20, 3e-3, 5), 1).unwrap();
    run.train_transcoders(8, &|| 0.0).unwrap();
    // The run trains on past the model they read: the file keeps that model beside them.
    run.train(5, &|| 0.0).unwrap();
    let mut reopened = gpt::Run::open(&run.save().unwrap()).unwrap();
    reopened.use_text(&text).unwrap();
    assert_eq!(reopened.transcoders().unwrap().model().variances(), run.transcoders().unwrap().model().variances());
    reopened.train_transcoders(12, &|| 0.0).unwrap();
    assert_eq!(reopened.transcoders().unwrap().step_count(), 20);
    assert_eq!(weights(&reopened), straight, "bit for bit as twenty steps in one go");
}

/// A request as the page sends it (which dictionary, then what to do), and the transcoders' answer.
fn ask(run: &mut gpt::Run, request: serde_json::Value) -> Result<gpt::inspect::graph::TranscoderAnswer, String> {
    use gpt::inspect::{DictionaryAnswer, DictionaryRequest};
    let request: DictionaryRequest = serde_json::from_value(request).map_err(|e| e.to_string())?;
    match run.dictionaries_do(request).map_err(|e| e.to_string())? {
        DictionaryAnswer::Transcoders(answer) => Ok(answer),
        DictionaryAnswer::Autoencoder(_) => Err("the autoencoder answered".into()),
    }
}

#[test]
fn the_pages_requests_train_transcoders_trace_a_prompt_and_test_it() {
    use serde_json::json;
    let mut run = trained_run(2);
    let refused = ask(&mut run, json!({ "of": "transcoders", "do": "measure" })).unwrap_err();
    assert!(refused.contains("no transcoders"), "{refused}");
    let config = serde_json::to_value(small()).unwrap();
    let start = json!({ "of": "transcoders", "do": "start", "config": config, "rows": 8, "steps": 4,
        "learning_rate": 3e-3, "seed": 5 });
    let begun = ask(&mut run, start).unwrap();
    assert_eq!((begun.standing.step, begun.standing.steps, begun.standing.d_sae), (0, 4, 64));
    assert_eq!(begun.standing.job, Some(gpt::RunJob::TranscoderStep));
    for _ in 0..4 {
        run.begin(gpt::RunJob::TranscoderStep, &[], 0.0).unwrap();
        while run.advance(&|| 0.0).unwrap().outcome.is_none() {}
    }
    let done = ask(&mut run, json!({ "of": "transcoders", "do": "report", "measure": false })).unwrap();
    assert_eq!(done.standing.step, 4);
    assert_eq!(done.measures.expect("the last step brings the measures").layers.len(), 2);
    let graph = ask(
        &mut run,
        json!({ "of": "transcoders", "do": "graph", "prompt": "the quick",
        "node_threshold": 0.8, "edge_threshold": 0.98 }),
    )
    .unwrap()
    .graph
    .unwrap();
    let nodes = graph.file["nodes"].as_array().unwrap();
    let features: Vec<&serde_json::Value> =
        nodes.iter().filter(|n| n["feature_type"] == "cross layer transcoder").collect();
    assert!(!features.is_empty() && graph.features >= features.len());
    // Each feature is labelled by the token it fires on most strongly in held-out text.
    assert!(features.iter().all(|n| !n["clerp"].as_str().unwrap().is_empty()), "{features:?}");
    let logits = nodes.iter().filter(|n| n["feature_type"] == "logit").count();
    let f = features[0];
    let (layer, feature, position) = (
        f["layer"].as_str().unwrap().parse::<usize>().unwrap(),
        f["feature"].as_i64().unwrap(),
        f["ctx_idx"].as_u64().unwrap(),
    );
    // The node's id names its feature index (its `feature` is circuit-tracer's pairing).
    let index: usize = f["node_id"].as_str().unwrap().split('_').nth(1).unwrap().parse().unwrap();
    assert!(feature >= index as i64);
    let knocked = json!({ "of": "transcoders", "do": "intervene", "prompt": "the quick",
        "features": [{ "layer": layer, "feature": index, "position": position }], "factor": 0.0 });
    let effects = ask(&mut run, knocked).unwrap().effects.unwrap();
    assert_eq!(effects.len(), logits, "an effect on each explained logit");
    let changes =
        |e: &gpt::inspect::graph::TokenEffect| [e.predicted, e.replacement, e.frozen_attention, e.free_attention];
    assert!(effects.iter().all(|e| changes(e).iter().all(|c| c.is_finite())));
    let card = ask(&mut run, json!({ "of": "transcoders", "do": "card", "layer": layer, "feature": index }))
        .unwrap()
        .card
        .unwrap();
    assert_eq!(card.summary.feature, index);
    assert_eq!(card.summary.top_token, f["clerp"].as_str().unwrap(), "the label is the card's top token");
    // What is wrong is said, and nothing changes.
    // Why a head attends: its score, split into terms that add up to it.
    let why = json!({ "of": "transcoders", "do": "why", "prompt": "the quick", "layer": 1, "head": 0, "query": 8,
        "key": 4 });
    let why = ask(&mut run, why).unwrap().why.unwrap();
    assert!((why.total - why.score).abs() < 1e-4 * (1.0 + why.score.abs()), "{why:?}");
    assert!(!why.pairs.is_empty() && why.attention > 0.0);
    let mut bad = |request: serde_json::Value, expected: &str| {
        let error = ask(&mut run, request).unwrap_err();
        assert!(error.contains(expected), "{error}");
    };
    let long = "the quick brown fox jumps over".to_string();
    bad(
        json!({ "of": "transcoders", "do": "graph", "prompt": long, "node_threshold": 0.8,
        "edge_threshold": 0.98 }),
        "longer than the model's block of 16",
    );
    bad(
        json!({ "of": "transcoders", "do": "graph", "prompt": "the", "node_threshold": 1.5,
        "edge_threshold": 0.98 }),
        "a share from 0 to 1",
    );
    bad(
        json!({ "of": "transcoders", "do": "intervene", "prompt": "the quick",
        "features": [{ "layer": 0, "feature": 63, "position": 99 }], "factor": 0.0 }),
        "does not fire at position 99",
    );
    bad(json!({ "of": "transcoders", "do": "card", "layer": 2, "feature": 0 }), "no layer 3");
    bad(json!({ "of": "transcoders", "do": "card", "layer": 0, "feature": 64 }), "no feature 64");
    let backwards = json!({ "of": "transcoders", "do": "why", "prompt": "the quick", "layer": 1, "head": 0, "query": 4,
        "key": 8 });
    bad(backwards, "from a position to itself or an earlier one");
    assert_eq!(ask(&mut run, json!({ "of": "transcoders", "do": "measure" })).unwrap().standing.step, 4);
    // A checkpoint opened without its text traces the same graph, its features unlabelled.
    let mut reopened = gpt::Run::open(&run.save().unwrap()).unwrap();
    let trace = json!({ "of": "transcoders", "do": "graph", "prompt": "the quick", "node_threshold": 0.8,
        "edge_threshold": 0.98 });
    let bare = ask(&mut reopened, trace).unwrap().graph.unwrap();
    assert_eq!(bare.file["links"], graph.file["links"]);
    let nodes = bare.file["nodes"].as_array().unwrap();
    let labels: Vec<&serde_json::Value> =
        nodes.iter().filter(|n| n["feature_type"] == "cross layer transcoder").map(|n| &n["clerp"]).collect();
    assert!(!labels.is_empty() && labels.iter().all(|&l| l == ""), "{labels:?}");
}
