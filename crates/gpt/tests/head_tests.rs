//! The measures that test what a head does (ablation, patching, attribution, composition,
//! grokking's Fourier view), each against what it must equal by construction or against a
//! direct computation. `python/check_heads.py` checks them against PyTorch on trained runs.

use gpt::data::{task_named, TaskConfig};
use gpt::inspect::{AblationGrid, Composition, Fill, FourierPoint, Questions};
use gpt::model::Site;
use gpt::{Budget, GPTConfig, Run, Settings, TrainConfig};
use ndarray::{s, Array2, ArrayView2};

fn task_run(task: &str, settings: serde_json::Value, model: GPTConfig, steps: usize) -> Run {
    let task = TaskConfig::new(task_named(task).unwrap(), settings, 0.5);
    let train = TrainConfig {
        batch_size: 16,
        max_iters: steps,
        eval_interval: Some(steps),
        eval_iters: 1,
        warmup_iters: 1,
        ..Default::default()
    };
    let settings = Settings { model, train, task: Some(task), ..Default::default() };
    let mut run = Run::create(&settings, "", &Budget::UNLIMITED).unwrap();
    run.evaluate().unwrap();
    for _ in 0..steps {
        run.step(&|| 0.0).unwrap();
    }
    run.evaluate().unwrap();
    run
}

fn reverse_run() -> Run {
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..Default::default() };
    task_run("reverse", serde_json::json!({"length": 4}), model, 20)
}

#[test]
fn the_run_ends_with_the_grid_and_a_knocked_out_part_costs_what_the_grid_says() {
    let run = reverse_run();
    let history = run.history();
    let ablations = history.records::<AblationGrid>();
    // 20 steps are too few to pay for a grid at step 0, so only the end records one.
    assert_eq!((ablations.len(), history.records::<Composition>().len()), (1, 2));
    let grid = ablations.last().unwrap();
    assert_eq!((grid.head_loss.len(), grid.head_accuracy.len(), grid.mlp_loss.len()), (4, 4, 2));
    assert_eq!(grid.fill, Fill::Mean);
    let ablation = run.ablate(Site::Head { layer: 1, head: 0 }, Fill::Mean, 8).unwrap();
    assert_eq!(ablation.ablated.loss - ablation.whole.loss, grid.head_loss[2]);
    assert_eq!(ablation.whole, grid.whole);
    assert_eq!(ablation.shown, 8);
    let zero = run.ablation_grid(Fill::Zero).unwrap();
    assert_ne!(zero.head_loss, grid.head_loss, "zero and mean ablation differ");
    assert!(run.ablate(Site::Residual { layer: 0, position: 0 }, Fill::Zero, 8).is_err());
    assert!(run.ablate(Site::Head { layer: 2, head: 0 }, Fill::Zero, 8).unwrap_err().to_string().contains("L3H1"));
    // The history goes with a saved run.
    let reopened = Run::open(&run.save().unwrap()).unwrap();
    assert_eq!(reopened.history().records::<AblationGrid>(), ablations);
    assert_eq!(reopened.history().records::<Composition>(), history.records::<Composition>());
}

#[test]
fn a_proposed_corruption_changes_one_symbol_and_patching_its_stream_restores_everything() {
    let run = reverse_run();
    let pair = run.question_pair("", "").unwrap();
    let changed: Vec<usize> = (0..pair.clean.len()).filter(|&i| pair.clean[i] != pair.corrupted[i]).collect();
    assert_eq!(changed.len(), 1, "{:?} vs {:?}", pair.clean, pair.corrupted);
    assert_ne!(pair.answer, pair.wrong);
    let patching = run.patch(&pair).unwrap();
    let t = pair.clean.len();
    assert_eq!((patching.heads.len(), patching.residual.len()), (4, 2 * t));
    // The clean stream at the changed position, entering layer 0, makes the corrupted run clean.
    assert!((patching.residual[changed[0]] - 1.0).abs() < 1e-5, "{:?}", patching.residual);
    // Before it, both runs are the same: nothing to restore.
    assert!(patching.residual[..changed[0]].iter().all(|&r| r.abs() < 1e-5));
    // Typed: the same pair, read from its text.
    let typed = run.question_pair(&pair.clean_text, &pair.corrupted_text).unwrap();
    assert_eq!((typed.clean, typed.corrupted), (pair.clean.clone(), pair.corrupted.clone()));
    let same = run.question_pair(&pair.clean_text, &pair.clean_text).unwrap_err().to_string();
    assert!(same.contains("answers differ"), "{same}");
}

#[test]
fn every_task_proposes_a_pair_to_patch_at_its_preset_trained_or_not() {
    for task in gpt::TASKS {
        let settings = gpt::presets::for_task(*task).settings;
        let mut run = Run::create(&settings, "", &Budget::UNLIMITED).unwrap();
        for trained in [false, true] {
            if trained {
                run.step(&|| 0.0).unwrap();
            }
            let name = task.name();
            let pair = run.question_pair("", "").unwrap_or_else(|e| panic!("{name}: {e}"));
            let changed = (0..pair.clean.len()).filter(|&i| pair.clean[i] != pair.corrupted[i]).count();
            assert_eq!(changed, 1, "{name}: {:?} vs {:?}", pair.clean, pair.corrupted);
            assert_ne!(pair.answer, pair.wrong, "{name}");
            // What the view shows to edit reads back as the same pair.
            let typed = run.question_pair(&pair.clean_text, &pair.corrupted_text).unwrap();
            assert_eq!((typed.clean, typed.corrupted), (pair.clean, pair.corrupted), "{name}");
        }
    }
}

#[test]
fn direct_attributions_add_up_to_the_logit() {
    for model in [
        GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..Default::default() },
        GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, bias: false, ..Default::default() },
        GPTConfig {
            block_size: 16,
            n_layer: 2,
            n_head: 2,
            n_embd: 16,
            norm: gpt::ops::NormKind::RmsNorm,
            tie_weights: false,
            ..Default::default()
        },
    ] {
        let run = task_run("reverse", serde_json::json!({"length": 4}), model, 5);
        let attribution = run.attribute(&run.question_pair("", "").unwrap()).unwrap();
        let (logit, difference) =
            attribution.parts.iter().fold((0.0, 0.0), |(l, d), p| (l + p.logit, d + p.difference));
        assert!((logit - attribution.logit).abs() < 1e-4, "{logit} vs {}", attribution.logit);
        assert!((difference - attribution.difference).abs() < 1e-4, "{difference} vs {}", attribution.difference);
        assert!(
            attribution.parts.iter().any(|p| p.name.to_string() == "L2H2")
                && attribution.parts[0].name.to_string() == "embeddings"
        );
    }
}

/// A head's W_Q, W_K, W_V (C × hs) and W_O (hs × C), TransformerLens's way round, folded and
/// centred as TransformerLens loads a LayerNorm model.
fn head_matrices(run: &Run, layer: usize, head: usize) -> [Array2<f64>; 4] {
    let cfg = run.model().config();
    let (c, hs) = (cfg.n_embd, cfg.n_embd / cfg.n_head);
    let get = |name: String| {
        let w = run.model().params().get(&name).unwrap();
        w.mapv(f64::from).into_dimensionality::<ndarray::Ix2>().unwrap_or_else(|_| {
            let n = w.len();
            Array2::from_shape_vec((1, n), w.iter().map(|&x| x as f64).collect()).unwrap()
        })
    };
    let qkv = get(format!("transformer.h.{layer}.attn.c_attn.weight"));
    let proj = get(format!("transformer.h.{layer}.attn.c_proj.weight"));
    let norm = get(format!("transformer.h.{layer}.ln_1.weight"));
    let centre = |m: Array2<f64>| {
        let mean = m.mean_axis(ndarray::Axis(0)).unwrap();
        &m - &mean
    };
    let read = |part: usize| {
        let rows = qkv.slice(s![part * c + head * hs..part * c + (head + 1) * hs, ..]).t().to_owned();
        centre(&rows * &norm.t())
    };
    let o = centre(proj.slice(s![.., head * hs..(head + 1) * hs]).to_owned()).t().to_owned();
    [read(0), read(1), read(2), o]
}

fn frobenius(m: ArrayView2<f64>) -> f64 {
    m.iter().map(|x| x * x).sum::<f64>().sqrt()
}

#[test]
fn composition_scores_are_the_norms_of_the_full_products() {
    let run = reverse_run();
    let scores = run.composition().unwrap();
    let nh = 2;
    for h1 in 0..nh {
        let [_, _, v1, o1] = head_matrices(&run, 0, h1);
        let ov1 = v1.dot(&o1);
        for h2 in 0..nh {
            let [q2, k2, v2, o2] = head_matrices(&run, 1, h2);
            let (qk2, ov2) = (q2.dot(&k2.t()), v2.dot(&o2));
            let score = |m: &Array2<f64>| frobenius(ov1.dot(m).view()) / frobenius(ov1.view()) / frobenius(m.view());
            let i = h1 * nh + h2;
            for (mine, theirs) in
                [(scores.q[i], score(&qk2)), (scores.k[i], score(&qk2.t().to_owned())), (scores.v[i], score(&ov2))]
            {
                assert!((mine as f64 - theirs).abs() < 1e-5, "L0H{h1} → L1H{h2}: {mine} vs {theirs}");
            }
        }
    }
}

#[test]
fn a_modular_run_records_its_progress_measures() {
    let model = GPTConfig { block_size: 5, n_layer: 1, n_head: 2, n_embd: 16, ..Default::default() };
    let run = task_run("modular", serde_json::json!({"p": 11}), model, 10);
    let fourier = &run.history().records::<FourierPoint>();
    assert_eq!(fourier.len(), 1, "10 steps pay for no record before the end");
    let last = fourier.last().unwrap();
    assert_eq!(last.norms.len(), 6, "the constant, then frequencies 1 to 5");
    assert!(last.restricted_loss.is_finite() && last.excluded_loss.is_finite());
    // The embedding's norm over all frequencies is its norm (the basis is orthonormal).
    let wte = run.model().params().get("transformer.wte.weight").unwrap();
    let numbers: f32 = wte.slice(s![..11, ..]).iter().map(|x| x * x).sum();
    let spread: f32 = last.norms.iter().map(|n| n * n).sum();
    assert!((numbers - spread).abs() < 1e-4 * numbers, "{numbers} vs {spread}");
    // The plain losses on all problems are the evaluation's, up to its sampling: read on every problem.
    assert!(last.train_loss > 0.0 && last.test_loss > 0.0);
    assert_eq!(gpt::inspect::key_frequencies(&[9.0, 1.0, 1.0, 5.0, 1.0, 1.1]), vec![3]);
    // A text run and other tasks have none.
    assert!(reverse_run().fourier().unwrap().is_none());
}

#[test]
fn the_progress_measures_are_recorded_as_often_as_they_cost_an_eightieth_of_training() {
    let model = GPTConfig { block_size: 5, n_layer: 1, n_head: 2, n_embd: 16, ..Default::default() };
    let mut run = task_run("modular", serde_json::json!({"p": 11}), model, 10);
    run.set_max_iters(600).unwrap();
    for _ in 0..59 {
        (0..10).for_each(|_| run.step(&|| 0.0).map(drop).unwrap());
        run.evaluate().unwrap();
    }
    // 121 problems of 5 tokens cost an eightieth of 3 × 16 × 5 tokens a step over 202 steps, so
    // the first evaluation 202 steps after the last record, and those that end the run (step 10
    // ended it before it was lengthened).
    let steps: Vec<usize> = run.history().records::<FourierPoint>().iter().map(|point| point.step).collect();
    assert_eq!(steps, [10, 220, 430, 600]);
    let inside = run.inside(&["fourier".to_string()], "", "", &Default::default()).unwrap();
    assert_eq!(inside.views["fourier"]["now"]["step"], 600, "the view shows the last record");
}

#[test]
fn the_views_answer_their_questions_and_refuse_bad_ones_with_a_message() {
    let run = reverse_run();
    let views: Vec<String> =
        ["ablation", "patching", "attribution", "composition", "fourier"].map(String::from).to_vec();
    let asked = Questions { ablate: Some(Site::Mlp { layer: 1 }), fill: Fill::Zero, ..Default::default() };
    let inside = run.inside(&views, "", "", &asked).unwrap();
    assert_eq!(inside.views["ablation"]["ablation"]["site"], serde_json::json!({"kind": "mlp", "layer": 1}));
    assert!(inside.views["fourier"].is_null());
    assert_eq!(inside.views["patching"]["heads"].as_array().unwrap().len(), 4);
    let typed = Questions { clean: "abcd".into(), corrupted: "abcdd".into(), ..Default::default() };
    let inside = run.inside(&views, "", "", &typed).unwrap();
    let error = inside.views["patching"]["error"].as_str().unwrap();
    assert!(error.contains("same length"), "{error}");
    assert!(inside.views["ablation"]["error"].is_null(), "the other views still answer");
}
