//! A sparse autoencoder trained through a run (the GPT's own trainer): it learns, gives the same
//! weights on any number of threads, keeps its decoder rows at unit norm; its views agree with the
//! passes they summarise; and it comes back from SAELens's format as it went.

use gpt::sae::{Architecture, SaeConfig};

fn trained_run() -> gpt::Run {
    use gpt::{Budget, GPTConfig, Run, Settings, TrainConfig};
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..Default::default() };
    let train = TrainConfig { batch_size: 4, max_iters: 30, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
    let mut run = Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap();
    run.train(30, &|| 0.0).unwrap();
    run
}

/// A small TopK autoencoder on the stream leaving block 1.
fn small_top_k() -> SaeConfig {
    SaeConfig { expansion: 4, architecture: Architecture::TopK { k: 4, aux_coefficient: 1.0 }, ..SaeConfig::top_k(1) }
}

/// An autoencoder's weights after `steps` steps on `threads` threads, and its measures.
fn train_features(run: &mut gpt::Run, threads: usize, steps: usize) -> (Vec<f32>, gpt::run::FeatureMeasures) {
    run.start_features(small_top_k(), gpt::sae::recipe(8, steps, 3e-3, 5), threads).unwrap();
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
    // The loss the reconstruction adds, which reads the same wherever zeroing costs everything.
    assert_eq!(trained.loss_added, trained.loss_with_sae - trained.loss_clean);
    assert!(trained.loss_added < fresh.loss_added, "{fresh:?} then {trained:?}");
    // Silent over the held-out tokens measured, which it says.
    assert!(trained.tokens > 0 && (0.0..=1.0).contains(&trained.silent), "{trained:?}");
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
    let list = run.feature_list(&index, gpt::run::FeatureOrder::Density);
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
    let config = gpt::SampleConfig { prompt: "the ".into(), max_new_tokens: 12, ..Default::default() };
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
    let files = gpt::interop::saelens::export_sae(sae.view(), "test", 16).unwrap();
    let cfg = String::from_utf8(files[0].1.clone()).unwrap();
    let back = gpt::interop::saelens::import_sae(&cfg, &files[1].1, 2, 16).unwrap();
    assert_eq!(back.config(), sae.config());
    assert_eq!(back.params().values, sae.params().values);
    let wrong = gpt::interop::saelens::import_sae(&cfg, &files[1].1, 2, 8).unwrap_err().to_string();
    assert!(wrong.contains("this model has 8 channels"), "{wrong}");
}

#[test]
fn the_pages_requests_begin_train_and_read_an_autoencoder_and_say_what_is_wrong() {
    use gpt::run::FeatureRequest;
    let mut run = trained_run();
    let refused = run.features_do(FeatureRequest::Measure).unwrap_err().to_string();
    assert!(refused.contains("no autoencoder has been started"), "{refused}");
    let config = SaeConfig { expansion: 2, ..SaeConfig::top_k(1) };
    let start =
        FeatureRequest::Start(gpt::run::DictionaryStart { config, rows: 4, steps: 6, learning_rate: 3e-3, seed: 1 });
    let begun = run.features_do(start).unwrap();
    let standing = &begun.standing;
    assert_eq!((standing.step, standing.steps, standing.d_sae, standing.d_in), (0, 6, 32, 16));
    let copy = Some(gpt::run::DictionaryShape::Autoencoder(config));
    assert_eq!((standing.copy, standing.shards), (copy, 1), "what a helper's copy is built from");
    assert_eq!(standing.job, Some(gpt::RunJob::FeatureStep));
    // The page shares each step with its helpers (here none), then asks what the steps did.
    let mut steps = |n: usize| {
        for _ in 0..n {
            run.begin(gpt::RunJob::FeatureStep, &[], 0.0).unwrap();
            while run.advance(&|| 0.0).unwrap().outcome.is_none() {}
        }
        run.features_do(FeatureRequest::Report { measure: false }).unwrap()
    };
    let trained = steps(4);
    assert_eq!((trained.standing.step, trained.measures.is_none()), (4, true));
    assert_eq!(trained.report.as_ref().map(|r| r.step), Some(4));
    let done = steps(2);
    assert_eq!(done.standing.step, 6);
    assert!(done.measures.is_some(), "the last steps bring the measures");
    let list = run.features_do(FeatureRequest::List { order: "density".into(), top: 5 }).unwrap().list.unwrap();
    assert_eq!(list.len(), 5);
    let bad = run.features_do(FeatureRequest::List { order: "size".into(), top: 5 }).unwrap_err().to_string();
    assert!(bad.contains("density or importance"), "{bad}");
    let card = run.features_do(FeatureRequest::Card { feature: list[0].feature }).unwrap().card.unwrap();
    assert_eq!(card.summary, list[0]);
    let missing = run.features_do(FeatureRequest::Card { feature: 32 }).unwrap_err().to_string();
    assert!(missing.contains("there is no feature 32: the autoencoder has 32"), "{missing}");
    let odd = "\u{1F600} é\u{0301} ";
    let which = run.features_do(FeatureRequest::Which { text: odd.into() }).unwrap_err().to_string();
    assert!(which.contains('\u{1F600}'), "a character the vocabulary lacks is named: {which}");
    let read = run.features_do(FeatureRequest::Which { text: "the fox".into() }).unwrap().which.unwrap();
    assert_eq!(read.len(), 7);
}

#[test]
fn an_autoencoder_is_saved_with_its_run_and_comes_back_while_the_model_is_the_one_it_read() {
    let mut run = trained_run();
    let (weights, measures) = train_features(&mut run, 1, 20);
    let dead = run.features().unwrap().model().since_fired();
    let reopened = gpt::Run::open(&run.save().unwrap()).unwrap();
    let back = reopened.features().expect("the autoencoder comes back with the run");
    assert_eq!(back.step_count(), 20);
    let back_weights: Vec<f32> = back.model().sae().params().values.iter().flat_map(|v| v.iter().copied()).collect();
    assert_eq!(back_weights, weights);
    assert_eq!(back.model().since_fired(), dead, "how long each feature has been silent");
    let losses = &run.features().unwrap().history().losses;
    assert_eq!((losses.len(), &back.history().losses), (20, losses), "its loss curve, step by step");
    let mut reopened = reopened;
    reopened.use_text(&"the quick brown fox jumps over the lazy dog. ".repeat(20)).unwrap();
    assert_eq!(reopened.feature_measures(2).unwrap(), measures, "the same measures, bit for bit");
    // Once the model trains on, the model the autoencoder reads is kept beside it.
    let mut run = reopened;
    run.set_max_iters(31).unwrap();
    run.train(1, &|| 0.0).unwrap();
    let mut later = gpt::Run::open(&run.save().unwrap()).unwrap();
    assert_eq!(later.features().expect("kept with the model it reads").model().model_step(), 30);
    later.use_text(&"the quick brown fox jumps over the lazy dog. ".repeat(20)).unwrap();
    assert_eq!(later.feature_measures(2).unwrap(), measures, "the measures of the model it read");
}

#[test]
fn an_autoencoder_saved_part_way_trains_on_as_if_it_never_stopped() {
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
    let straight = {
        let mut run = trained_run();
        train_features(&mut run, 1, 20).0
    };
    let mut run = trained_run();
    // The same recipe, stopped at step 8 and saved: Adam's moments and the batches' random state go with it.
    run.start_features(small_top_k(), gpt::sae::recipe(8, 20, 3e-3, 5), 1).unwrap();
    run.train_features(8, &|| 0.0).unwrap();
    let mut reopened = gpt::Run::open(&run.save().unwrap()).unwrap();
    reopened.use_text(&text).unwrap();
    reopened.train_features(12, &|| 0.0).unwrap();
    let trainer = reopened.features().unwrap();
    let weights: Vec<f32> = trainer.model().sae().params().values.iter().flat_map(|v| v.iter().copied()).collect();
    assert_eq!(trainer.step_count(), 20);
    assert_eq!(weights, straight, "bit for bit as twenty steps in one go");
}

#[test]
fn a_features_knockout_on_a_task_names_the_problems_whose_answer_flips() {
    use gpt::{Budget, GPTConfig, Run, Settings, TaskConfig, TrainConfig};
    let model = GPTConfig { block_size: 7, n_layer: 2, n_head: 2, n_embd: 32, ..Default::default() };
    let train =
        TrainConfig { batch_size: 16, max_iters: 150, learning_rate: 3e-3, warmup_iters: 10, ..Default::default() };
    let task = TaskConfig { train_fraction: 0.5, ..TaskConfig::default().with("length", 3).with("symbols", 4) };
    let settings = Settings { model, train, task: Some(task), ..Default::default() };
    let mut run = Run::create(&settings, "", &Budget::UNLIMITED).unwrap();
    run.train(150, &|| 0.0).unwrap();
    let config = SaeConfig {
        expansion: 2,
        architecture: Architecture::TopK { k: 4, aux_coefficient: 1.0 },
        ..SaeConfig::top_k(1)
    };
    run.start_features(config, gpt::sae::recipe(16, 40, 3e-3, 2), 1).unwrap();
    run.train_features(40, &|| 0.0).unwrap();
    let index = run.index_features(2).unwrap();
    let busiest = run.feature_list(&index, gpt::run::FeatureOrder::Importance)[0].feature;
    let k = run.knock_out_feature(busiest, 2).unwrap();
    assert_eq!(k.rows, 32);
    let changed = k.right.abs_diff(k.right_without);
    assert!(changed > 0 && k.loss_without > k.loss, "the feature the loss needs most matters: {k:?}");
    assert!(k.flipped.len() >= changed.min(gpt::run::SHOWN_FLIPS), "{k:?}");
    for (problem, _) in &k.flipped {
        // A problem whole, as typed: its three letters, '>', and the three reversed.
        let (prompt, answer) = problem.split_once('>').expect("a reverse problem");
        assert_eq!(prompt.chars().rev().collect::<String>(), answer, "{problem:?}");
    }
}

#[test]
fn a_transcoder_learns_what_an_mlp_writes_from_what_it_reads_and_stands_in_for_it() {
    use gpt::model::HookPoint;
    let mut run = trained_run();
    let top_k = Architecture::TopK { k: 4, aux_coefficient: 1.0 };
    let config = SaeConfig { expansion: 4, architecture: top_k, ..SaeConfig::transcoder(1) };
    run.start_features(config, gpt::sae::recipe(8, 1, 3e-3, 5), 1).unwrap();
    let fresh = run.feature_measures(2).unwrap();
    run.start_features(config, gpt::sae::recipe(8, 200, 3e-3, 5), 1).unwrap();
    assert_eq!(run.train_features(200, &|| 0.0).unwrap().stopped, None);
    let trained = run.feature_measures(2).unwrap();
    // Measured against the MLP's output, and its output in the MLP's place.
    assert!(trained.explained_variance > 0.8, "{trained:?}");
    assert!(trained.explained_variance > fresh.explained_variance + 0.2, "{fresh:?} then {trained:?}");
    assert!(trained.loss_recovered > 0.5 && trained.loss_with_sae < trained.loss_zeroed, "{trained:?}");
    // A feature knocked out of the MLP's output changes the loss; one that never fires does not.
    let index = run.index_features(2).unwrap();
    let busiest = run.feature_list(&index, gpt::run::FeatureOrder::Density)[0].feature;
    let knocked = run.knock_out_feature(busiest, 2).unwrap();
    assert_ne!(knocked.loss, knocked.loss_without);
    if let Some(silent) = (0..index.firings.len()).find(|&j| index.firings[j].is_empty()) {
        let k = run.knock_out_feature(silent, 2).unwrap();
        assert_eq!(k.loss, k.loss_without, "feature {silent} never fires");
    }
    // Saved with the run, it comes back a transcoder.
    let reopened = gpt::Run::open(&run.save().unwrap()).unwrap();
    assert_eq!(reopened.features().unwrap().model().sae().config(), &config);
    // SAELens has a ReLU transcoder and no TopK one: a ReLU one goes there and back.
    let sae = run.features().unwrap().model().sae();
    let refused = gpt::interop::saelens::export_sae(sae.view(), "test", 16).unwrap_err().to_string();
    assert!(refused.contains("SAELens has no TopK transcoder"), "{refused}");
    // Each goes out as SAELens saves it and comes back the same; its cfg.json is returned.
    let round_trip = |config: SaeConfig| {
        let sae = gpt::sae::Sae::new(config, 2, 16, 3).unwrap();
        let files = gpt::interop::saelens::export_sae(sae.view(), "test", 16).unwrap();
        let cfg = String::from_utf8(files[0].1.clone()).unwrap();
        let back = gpt::interop::saelens::import_sae(&cfg, &files[1].1, 2, 16).unwrap();
        let (ours, theirs) = (sae.params(), back.params());
        assert_eq!((back.config(), &theirs.names, &theirs.values), (sae.config(), &ours.names, &ours.values));
        cfg
    };
    let relu = SaeConfig { architecture: Architecture::Relu { l1_coefficient: 0.0 }, ..config };
    let cfg = round_trip(relu);
    assert!(cfg.contains("\"hook_name_out\": \"blocks.1.hook_mlp_out\""), "{cfg}");
    // So does a skip transcoder, as SAELens's SkipTranscoder with its W_skip.
    let cfg = round_trip(SaeConfig { skip: true, ..relu });
    assert!(cfg.contains("\"architecture\": \"skip_transcoder\""), "{cfg}");
    // An autoencoder has no skip connection.
    let error = run.start_features(SaeConfig { skip: true, ..SaeConfig::top_k(1) }, gpt::sae::recipe(8, 1, 3e-3, 5), 1);
    assert!(error.unwrap_err().to_string().contains("only a transcoder has a skip connection"));
    // Settings that make no transcoder are refused, saying what one is.
    let across = SaeConfig { output: Some(HookPoint::MlpOut { layer: 0 }), ..config };
    let error = run.start_features(across, gpt::sae::recipe(8, 1, 3e-3, 5), 1).unwrap_err().to_string();
    assert!(error.contains("a transcoder reads what an MLP reads and writes what it writes"), "{error}");
    let bare = SaeConfig { output: None, ..config };
    let error = run.start_features(bare, gpt::sae::recipe(8, 1, 3e-3, 5), 1).unwrap_err().to_string();
    assert!(error.contains("what block 1's MLP reads is a transcoder's input"), "{error}");
}

#[test]
fn the_autoencoder_only_architectures_learn_the_same_on_any_number_of_threads_and_save_as_saelens_loads_them() {
    let batch = Architecture::BatchTopK { k: 4, aux_coefficient: 1.0 };
    let matryoshka = Architecture::Matryoshka { k: 4, aux_coefficient: 1.0, levels: 3 };
    let jump = Architecture::JumpRelu { l0_coefficient: 0.01, bandwidth: gpt::sae::JUMP_BANDWIDTH };
    let mut run = trained_run();
    for architecture in [batch, matryoshka, jump] {
        let config = SaeConfig { architecture, ..small_top_k() };
        let weights = |run: &mut gpt::Run, threads| {
            // BatchTopK's threshold follows its batches slowly (SAELens's rate, 0.01 a step).
            run.start_features(config, gpt::sae::recipe(8, 300, 3e-3, 5), threads).unwrap();
            run.train_features(300, &|| 0.0).unwrap();
            let sae = run.features().unwrap().model().sae().clone();
            (sae, run.feature_measures(2).unwrap())
        };
        let (one, measures) = weights(&mut run, 1);
        let (two, _) = weights(&mut run, 2);
        assert_eq!(one.params().values, two.params().values, "{architecture:?}: one thread or two");
        assert!(measures.explained_variance > 0.5 && measures.l0 < 12.0, "{architecture:?}: {measures:?}");
        // It learnt a threshold: BatchTopK's follows each batch's least firing activation.
        let threshold = one.view().threshold().expect("a thresholded architecture");
        assert!(threshold.iter().all(|&t| t >= 0.0) && threshold.iter().any(|&t| t > 0.0), "{threshold:?}");
        // Saved as SAELens saves it (as JumpReLU), it comes back encoding the same.
        let files = gpt::interop::saelens::export_sae(one.view(), "test", 16).unwrap();
        let cfg = String::from_utf8(files[0].1.clone()).unwrap();
        assert!(cfg.contains("\"architecture\": \"jumprelu\""), "{cfg}");
        let back = gpt::interop::saelens::import_sae(&cfg, &files[1].1, 2, 16).unwrap();
        assert_eq!(back.params().values, one.params().values);
        let reopened = gpt::Run::open(&run.save().unwrap()).unwrap();
        assert_eq!(reopened.features().unwrap().model().sae().params().values, two.params().values, "with its run");
    }
    let transcoder = SaeConfig { architecture: batch, ..SaeConfig::transcoder(0) };
    let refused = run.start_features(transcoder, gpt::sae::recipe(8, 6, 3e-3, 5), 1).unwrap_err().to_string();
    assert!(refused.contains("train as autoencoders here"), "{refused}");
}
