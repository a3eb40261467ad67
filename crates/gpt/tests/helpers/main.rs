//! Helpers (the page's Web Workers, here on one thread) sharing a run's steps and evaluations, and
//! its autoencoder's or transcoders' steps: they compute what the run would alone, bit for bit, and
//! keep their copies of the model (or the dictionary) and the optimiser at the run's step, whatever
//! changes between steps.

#[path = "../common/mod.rs"]
mod common;
mod harness;

use common::{muon_run, muon_run_with, no_clock, setup_with};
use gpt::inspect::AblationGrid;
use gpt::run::DictionaryShape;
use gpt::sae::SaeConfig;
use gpt::{Outcome, Run, RunJob};
use harness::{alone, replica, Helpers};

#[test]
fn helpers_compute_what_the_run_would_alone_with_adamw_and_muon() {
    // Muon's own settings reach the helpers with the run's state: three steps of Polar Express's.
    let polar = serde_json::json!({"muon_ns_coefficients": "polar_express", "muon_ns_steps": 3});
    for optimizer in ["adamw", "muon", "muon, Polar Express"] {
        // Six steps make the whole run, so that its evaluation records the ablation grid.
        let make = || {
            let mut run = match optimizer {
                "adamw" => setup_with(3e-3, 1.0, 0.1, (24, 32)),
                "muon" => muon_run(),
                _ => muon_run_with(polar.clone()),
            };
            run.set_max_iters(6).unwrap();
            run
        };
        let (losses, evaluation, grid) = {
            let mut run = make();
            let losses = (0..6).map(|_| alone(&mut run)).collect::<Vec<_>>();
            (losses, run.evaluate().unwrap(), run.history().records::<AblationGrid>())
        };
        assert_eq!(grid.len(), 1, "the evaluation knocked every part out");
        for count in 1..=3 {
            let mut run = make();
            let mut helpers = Helpers::new(&run, count);
            let shared: Vec<u32> = (0..6).map(|_| helpers.step(&mut run)).collect();
            assert_eq!(shared, losses, "{count} helpers, {optimizer}");
            let shared_evaluation = helpers.perform(&mut run, RunJob::Evaluation);
            assert_eq!(shared_evaluation, Outcome::Evaluation(evaluation), "{count} helpers, {optimizer}");
            assert_eq!(run.history().records::<AblationGrid>(), grid, "the grid, {count} helpers, {optimizer}");
            assert_eq!(run.workers(), count + 1);
            // Each helper was sent the state once: no weights travel between steps.
            assert_eq!(helpers.syncs, count, "{count} helpers, {optimizer}");
        }
    }
}

#[test]
fn helpers_follow_new_settings_and_new_helpers_are_sent_the_state() {
    for make in [|| setup_with(3e-3, 1.0, 0.0, (24, 32)), muon_run] {
        let (mut run, mut solo) = (make(), make());
        let mut helpers = Helpers::new(&run, 1);
        let both = |run: &mut Run, solo: &mut Run, helpers: &mut Helpers| {
            for _ in 0..2 {
                assert_eq!(helpers.step(run), alone(solo));
            }
        };
        both(&mut run, &mut solo, &mut helpers);
        // Resume with a lower rate and dropout on: the helper's copy must step by them too.
        let mut settings = run.details().settings;
        settings.train.learning_rate = 1e-3;
        settings.model.dropout = 0.1;
        run.update_settings(&settings, &gpt::Budget::UNLIMITED).unwrap();
        solo.update_settings(&settings, &gpt::Budget::UNLIMITED).unwrap();
        both(&mut run, &mut solo, &mut helpers);
        // The page replaced its helper (a new worker count): the new one needs the whole state.
        helpers = Helpers::new(&run, 1);
        both(&mut run, &mut solo, &mut helpers);
        // A copy the run takes for another (under its id) refuses to compute on weights it lacks.
        helpers.replicas[0] = replica(&run, None);
        let progress = run.begin(RunJob::Step, &helpers.ids, 0.0).unwrap();
        let order = &progress.orders[0];
        let error = helpers.replicas[0].answer(&order.header, 0, |_, _| {}, false).unwrap_err().to_string();
        assert!(error.contains("no copy of the run's state"), "{error}");
        run.abort();
    }
}

#[test]
fn a_reply_to_work_given_up_is_dropped_and_the_helpers_get_the_state_again() {
    let (mut run, mut solo) = (muon_run(), muon_run());
    let mut helpers = Helpers::new(&run, 1);
    assert_eq!(helpers.step(&mut run), alone(&mut solo));
    let progress = run.begin(RunJob::Step, &helpers.ids, 0.0).unwrap();
    helpers.send(&run, progress.orders);
    run.advance(&no_clock).unwrap(); // the run's own shards, and the helper's sums go out
    run.abort(); // a helper failed, say
    assert!(run.advance(&no_clock).unwrap_err().to_string().contains("no job is in progress"));
    while helpers.answer_one(&mut run) {} // the helper may have applied the step: its replies are dropped
    assert!(run
        .accept("{}", 0, |_, _| {})
        .unwrap_err()
        .to_string()
        .contains("a reply from another worker cannot be read"));
    assert_eq!(run.step_count(), 1);
    for _ in 0..3 {
        assert_eq!(helpers.step(&mut run), alone(&mut solo), "the helper was sent the state again");
    }
}

/// An autoencoder's weights and its counts of silence, in bits.
fn autoencoder(run: &Run) -> (Vec<u32>, Vec<u64>) {
    let trainee = run.features().unwrap().model();
    let weights = trainee.sae().params().values.iter().flat_map(|v| v.iter().map(|w| w.to_bits())).collect();
    (weights, trainee.since_fired())
}

#[test]
fn helpers_train_an_autoencoder_as_the_run_would_alone_and_the_model_after_it() {
    // A short window of silence, so that dead features (and the auxiliary loss) come within the steps.
    let architecture = gpt::sae::Architecture::TopK { k: 1, aux_coefficient: 1.0 };
    let config = SaeConfig { expansion: 8, architecture, dead_tokens: 1500, ..SaeConfig::top_k(1) };
    let make = || {
        let mut run = setup_with(3e-3, 1.0, 0.0, (24, 32));
        run.start_features(config, gpt::sae::recipe(24, 12, 3e-3, 5), 1).unwrap(); // 4 shards a step
        run
    };
    let mut solo = make();
    let losses: Vec<u32> =
        (0..12).map(|_| Helpers::new(&solo, 0).dictionary_step(&mut solo, RunJob::FeatureStep)).collect();
    let trained = autoencoder(&solo);
    assert!(trained.1.iter().any(|&s| s >= 1500), "some features died: the auxiliary loss is in play");
    for count in 1..=2 {
        // The helpers join half-way, when the counts of silence they must be sent are not all 0.
        let mut run = make();
        let mut shared: Vec<u32> =
            (0..6).map(|_| Helpers::new(&run, 0).dictionary_step(&mut run, RunJob::FeatureStep)).collect();
        let mut helpers = Helpers::holding(&run, count, Some(DictionaryShape::Autoencoder(config)));
        shared.extend((0..6).map(|_| helpers.step(&mut run)));
        assert_eq!(shared, losses, "{count} helpers");
        assert_eq!(autoencoder(&run), trained, "the weights and the counts of silence, {count} helpers");
        // Each copy was sent the state (the frozen model's weights with it) once.
        assert_eq!(helpers.syncs, count);
        // A copy of the autoencoder refuses the model's orders, and a fresh copy of the model
        // gets the model's state.
        let progress = run.begin(RunJob::Step, &helpers.ids, 0.0).unwrap();
        let error = helpers.replicas[0].answer(&progress.orders[0].header, 0, |_, _| {}, false).unwrap_err();
        assert!(error.to_string().contains("holds a copy of an autoencoder or transcoders"), "{error}");
        run.abort();
        let mut helpers = Helpers::new(&run, count);
        let mut alone = make();
        (0..12).for_each(|_| _ = Helpers::new(&alone, 0).dictionary_step(&mut alone, RunJob::FeatureStep));
        assert_eq!(helpers.step(&mut run), self::alone(&mut alone), "the model's step after the autoencoder's");
    }
}

#[test]
fn helpers_train_transcoders_as_the_run_would_alone() {
    // Each layer's loss counts over its own variance: the helpers' copies must be sent those too.
    let config = SaeConfig { expansion: 4, ..SaeConfig::top_k(2) };
    let make = || {
        let mut run = setup_with(3e-3, 1.0, 0.0, (24, 32));
        (0..30).for_each(|_| _ = alone(&mut run)); // on a model barely trained, the MLPs write almost nothing
        run.start_transcoders(config, gpt::sae::recipe(24, 6, 3e-3, 5), 1).unwrap();
        run
    };
    let weights = |run: &Run| -> Vec<u32> {
        let params = run.transcoders().unwrap().model().dictionaries().params();
        params.values.iter().flat_map(|v| v.iter().map(|w| w.to_bits())).collect()
    };
    let mut solo = make();
    let losses: Vec<u32> =
        (0..6).map(|_| Helpers::new(&solo, 0).dictionary_step(&mut solo, RunJob::TranscoderStep)).collect();
    for count in 1..=2 {
        let mut run = make();
        let shape = DictionaryShape::Transcoders(*run.transcoders().unwrap().model().dictionaries().config());
        let mut helpers = Helpers::holding(&run, count, Some(shape));
        let shared: Vec<u32> = (0..6).map(|_| helpers.step(&mut run)).collect();
        assert_eq!(shared, losses, "{count} helpers");
        assert_eq!(weights(&run), weights(&solo), "{count} helpers");
        assert_eq!(helpers.syncs, count);
    }
}

#[test]
fn helpers_patch_a_circuits_edges_as_the_run_would_alone() {
    use gpt::inspect::circuit::{CircuitRequest, Method};
    let mut run = setup_with(3e-3, 1.0, 0.0, (24, 32));
    (0..3).for_each(|_| _ = alone(&mut run));
    let request = CircuitRequest { pairs: 6, ..CircuitRequest::default() };
    let bits = |scores: Vec<f32>| scores.into_iter().map(f32::to_bits).collect::<Vec<_>>();
    let solo = bits(run.edge_scores(&request, ("", ""), Method::Exact).unwrap());
    for count in 1..=3 {
        let mut helpers = Helpers::new(&run, count);
        let job = RunJob::Circuit(serde_json::json!({ "circuit": request }));
        assert_eq!(helpers.perform(&mut run, job), Outcome::Edges { edges: solo.len() });
        assert_eq!(helpers.syncs, count, "every helper computed edges on the run's weights");
        // The view reads the shared scores: the same, bit for bit.
        assert_eq!(bits(run.edge_scores(&request, ("", ""), Method::Exact).unwrap()), solo, "{count} helpers");
    }
    // A typed pair of two lengths is refused before any order goes out.
    let typed = RunJob::Circuit(serde_json::json!({ "circuit": request, "clean": "the cat", "corrupted": "the dog." }));
    let error = run.begin(typed, &[1], 0.0).unwrap_err().to_string();
    assert!(error.contains("patching needs the same number"), "{error}");
}

#[test]
fn helpers_run_the_learning_coefficients_chains_as_the_run_would_alone() {
    use gpt::llc::LlcConfig;
    use gpt::run::LlcQuestion;
    use gpt::{LlcRequest, WeightPart};
    let mut run = setup_with(3e-3, 1.0, 0.0, (24, 32));
    (0..3).for_each(|_| _ = alone(&mut run));
    let ask = |epsilon, part| {
        let config = LlcConfig { epsilon, gamma: 100.0, nbeta: None, chains: 3, draws: 8, burn_in: 4, seed: 5 };
        LlcRequest { config, part, ..LlcRequest::default() }
    };
    let parts = [WeightPart::Whole, WeightPart::Head { layer: 0, head: 1 }];
    for epsilon in [1e-4, 10.0] {
        let requests: Vec<LlcRequest> = parts.iter().map(|&part| ask(epsilon, part)).collect();
        // Debug text, so that a diverged chain's NaN compares equal to itself.
        let solo = format!("{:?}", run.llcs(&requests).unwrap());
        for count in 1..=3 {
            let mut helpers = Helpers::new(&run, count);
            let question = LlcQuestion { parts: parts.to_vec(), config: Some(requests[0].config), estimate: true };
            assert_eq!(helpers.perform(&mut run, RunJob::Llc(question)), Outcome::Llc { estimates: 2 });
            let kept = run.kept_llc().unwrap();
            assert_eq!((kept.step, kept.workers), (3, count + 1));
            assert_eq!(format!("{:?}", kept.estimates), solo, "{count} helpers, ε {epsilon}");
            assert_eq!(solo.contains("NaN"), epsilon > 1.0, "the big step ends chains");
        }
    }
    let error = run.llcs(&[ask(1e-4, WeightPart::Whole), ask(1e-3, WeightPart::Whole)]).unwrap_err().to_string();
    assert!(error.contains("share their setting"), "{error}");
}

/// A run of the LLC tests' setting, trained `steps` steps (its whole run) on its own worker.
fn trained_alone(steps: usize) -> Run {
    let mut run = setup_with(3e-3, 1.0, 0.0, (24, 32));
    run.set_max_iters(steps).unwrap();
    (0..steps).for_each(|_| _ = alone(&mut run));
    run
}

#[test]
fn helpers_share_the_live_llc_record_and_a_record_given_up_leaves_the_views_estimate() {
    use gpt::llc::LlcConfig;
    use gpt::run::{LlcPoint, LlcQuestion};
    let make = || trained_alone(6);
    let solo = {
        let mut run = make();
        run.evaluate().unwrap();
        run.history().records::<LlcPoint>()
    };
    assert_eq!(solo.len(), 1, "the last evaluation records the LLC");
    let mut run = make();
    let mut helpers = Helpers::new(&run, 1);
    // The view's estimate first, which a live record must leave as it is.
    let config = LlcConfig { chains: 2, draws: 4, burn_in: 2, ..LlcConfig::default() };
    let question = LlcQuestion { parts: vec![], config: Some(config), estimate: true };
    helpers.perform(&mut run, RunJob::Llc(question));
    let estimate = |run: &Run| format!("{:?}", run.kept_llc().map(|k| (k.step, &k.plan, &k.estimates)));
    let before = estimate(&run);
    // An evaluation given up while its record's chains run (the view's estimate is set aside).
    let mut progress = run.begin(RunJob::Evaluation, &helpers.ids, 0.0).unwrap();
    while run.kept_llc().is_some() {
        helpers.send(&run, std::mem::take(&mut progress.orders));
        assert!(progress.outcome.is_none(), "the evaluation ended before its record began");
        if !helpers.answer_one(&mut run) {
            progress = run.advance(&no_clock).unwrap();
        }
    }
    run.abort();
    assert_eq!(estimate(&run), before, "given up, the record leaves the view's estimate");
    assert!(run.history().records::<LlcPoint>().is_empty());
    // Again to the end: the record is the run's alone, its chains shared.
    helpers.headers.clear();
    assert!(matches!(helpers.perform(&mut run, RunJob::Evaluation), Outcome::Evaluation(_)));
    assert_eq!(run.history().records::<LlcPoint>(), solo, "the record with a helper");
    assert!(helpers.headers.iter().any(|h| h.contains("nbeta")), "a helper ran a chain of the record");
    assert_eq!(estimate(&run), before, "the record is not the view's estimate");
}

#[test]
fn helpers_estimate_each_head_at_a_kept_record_as_the_run_would_alone() {
    use gpt::inspect::HeadsLlcPoint;
    let make = || {
        let mut run = trained_alone(6);
        run.evaluate().unwrap(); // the live record at step 6 keeps the weights there
        run.set_max_iters(8).unwrap();
        (0..2).for_each(|_| _ = alone(&mut run)); // and the model moves on
        run
    };
    let heads = |count: usize| {
        let mut run = make();
        let mut helpers = Helpers::new(&run, count);
        assert_eq!(helpers.perform(&mut run, RunJob::HeadsLlc), Outcome::HeadsLlc { left: Some(0) });
        assert_eq!(helpers.perform(&mut run, RunJob::HeadsLlc), Outcome::HeadsLlc { left: None });
        let started = helpers.headers.iter().any(|h| h.contains("\"start\""));
        assert_eq!(started, count > 0, "the kept weights travel with the plan");
        run.history().records::<HeadsLlcPoint>()
    };
    let solo = heads(0);
    assert_eq!(solo.iter().map(|p| p.step).collect::<Vec<_>>(), [6]);
    for count in 1..=2 {
        assert_eq!(heads(count), solo, "{count} helpers");
    }
}
