//! The binding tests, shared by the page suite (`web.rs`) and the worker suite (`worker.rs`),
//! and the model against PyTorch in this wasm build (`scripts/test.sh` runs both builds).

#[path = "../../crates/gpt/tests/pytorch/mod.rs"]
mod pytorch;

use gpt_playground::{catalog, describe_model, import_run, Replica, Run};
use js_sys::{Float32Array, Reflect, JSON};
use tsify::Ts;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const TINY: &str = r#"{"model": {"n_layer": 2, "n_head": 2, "n_embd": 16, "block_size": 8, "bias": false},
    "train": {"batch_size": 8, "learning_rate": 0.01, "min_lr": 0.001, "warmup_iters": 5, "max_iters": 60, "eval_iters": 4}}"#;

/// The page's budget: a tab's wasm memory.
const BUDGET: &str = r#"{"max_params": 50000000, "max_training_bytes": 2147483648}"#;

fn json(s: &str) -> JsValue {
    JSON::parse(s).expect("test JSON")
}

/// A value as the page passes it, typed as `T`.
fn typed<T: tsify::Tsify>(s: &str) -> Ts<T> {
    Ts::new_unchecked(json(s))
}

fn budget() -> Ts<gpt::Budget> {
    typed(BUDGET)
}

fn new_run(settings: &str, text: &str) -> Result<Run, JsValue> {
    Run::new(typed(settings), text, budget())
}

/// Does a step or an evaluation with no helpers, as the page's worker does with none: its outcome.
fn perform(run: &mut Run, kind: &str) -> JsValue {
    let mut progress: JsValue = run.begin(typed(&format!("{kind:?}")), vec![]).unwrap().into();
    while get(&progress, "next").as_string().unwrap() != "done" {
        progress = run.advance().unwrap().into();
    }
    get(&progress, "outcome")
}

/// `n` steps, and the report on them.
fn train(run: &mut Run, n: usize) -> JsValue {
    (0..n).for_each(|_| drop(perform(run, "step")));
    run.take_report().unwrap().into()
}

fn text() -> String {
    "the cat sat on the mat. the dog sat on the log. ".repeat(20)
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &key.into()).expect("an object")
}

fn num(obj: &JsValue, key: &str) -> f64 {
    get(obj, key).as_f64().unwrap_or_else(|| panic!("{key} is not a number"))
}

/// The loss of the last step a `train` report covers.
fn last_loss(report: &JsValue) -> f64 {
    let losses: js_sys::Array = get(report, "losses").dyn_into().unwrap();
    losses.get(losses.length() - 1).as_f64().unwrap()
}

/// The message of a thrown value, checking that it is a real JS `Error`.
fn message(thrown: impl Into<JsValue>) -> String {
    let value: JsValue = thrown.into();
    let error = value.dyn_ref::<js_sys::Error>().expect("thrown values are JS Errors");
    String::from(error.message())
}

#[wasm_bindgen_test]
fn its_catalog_lists_presets_tasks_and_optimizers_and_its_version() {
    let catalog: JsValue = catalog().unwrap().into();
    assert_eq!(get(&catalog, "version").as_string().unwrap(), env!("CARGO_PKG_VERSION"));
    let names = |key: &str| -> Vec<String> {
        let list: js_sys::Array = get(&catalog, key).dyn_into().unwrap();
        list.iter().map(|p| get(&p, "name").as_string().unwrap()).collect()
    };
    assert_eq!(names("tasks"), ["repeat", "reverse", "sort", "addition", "modular", "brackets", "parity", "recall"]);
    assert_eq!(names("optimizers"), ["adamw", "muon", "sgd"]);
    let list: js_sys::Array = get(&catalog, "presets").dyn_into().unwrap();
    let names: Vec<String> = list.iter().map(|p| get(&p, "name").as_string().unwrap()).collect();
    assert_eq!(
        names,
        [
            "tiny",
            "names",
            "nano-cpu",
            "nano-muon",
            "speedrun",
            "induction",
            "reverse",
            "sort",
            "addition",
            "grokking",
            "brackets",
            "parity",
            "recall",
            "induction, built by hand",
            "induction with a backup head, built by hand",
            "reverse, built by hand"
        ]
    );
    let model = get(&get(&list.get(2), "settings"), "model");
    assert_eq!(num(&model, "n_embd"), 128.0);
}

#[wasm_bindgen_test]
fn describes_a_model_or_says_what_is_wrong() {
    let names = json(r#"{"chars": 5000, "vocab_size": 65}"#);
    let size =
        get(&JsValue::from(describe_model(typed(TINY), Ts::new_unchecked(names.clone()), budget()).unwrap()), "size");
    // 65×16 + 8×16 embeddings, 2 blocks of 3,136 weights and 32 norm weights, the final norm.
    assert_eq!(num(&size, "params"), (65 * 16 + 8 * 16 + 2 * (16 * 48 + 16 * 16 + 16 * 64 * 2 + 32) + 16) as f64);
    let described: JsValue =
        describe_model(typed(r#"{"model": {"n_head": 5, "n_embd": 16}}"#), Ts::new_unchecked(names), budget())
            .unwrap()
            .into();
    let errors: js_sys::Array = get(&described, "errors").dyn_into().unwrap();
    assert_eq!(get(&errors.get(0), "field").as_string().unwrap(), "model.n_head");
    assert!(get(&errors.get(0), "message").as_string().unwrap().contains("divisible by n_head"));
    assert!(get(&described, "size").is_null() || get(&described, "size").is_undefined());
    // A thrown error for an invalid setting names the field too.
    let thrown: JsValue = new_run(r#"{"train": {"max_iters": 0}}"#, &text()).err().unwrap();
    assert_eq!(get(&thrown, "field").as_string().unwrap(), "train.max_iters");
}

#[wasm_bindgen_test]
fn bad_inputs_are_errors_not_panics() {
    let cases = [
        (r#"{"model": {"n_layer": "four"}}"#, text(), "settings"),
        (r#"{"model": {"n_layer": -1}}"#, text(), "settings"),
        (r#"{"model": {"dropout": 1.5}}"#, text(), "dropout"),
        (r#"{"modle": {}}"#, text(), "modle"),
        (r#"{"model": {"n_layr": 2}}"#, text(), "n_layr"),
        (r#"{"train": {"learning_rate": 0}}"#, text(), "learning_rate"),
        (r#"{"model": {"n_layer": 1000000, "n_embd": 4096, "n_head": 8}}"#, text(), "parameters"),
        ("null", text(), "settings"),
        (TINY, String::new(), "empty"),
        (TINY, "short".into(), "too short"),
    ];
    for (config, text, want) in cases {
        let err = new_run(config, &text).err().expect("an error");
        let msg = message(err);
        assert!(msg.contains(want), "{config}: {msg:?} should mention {want:?}");
    }
}

#[wasm_bindgen_test]
fn training_lowers_the_loss() {
    let mut trainer = new_run(TINY, &text()).unwrap();
    assert_eq!(num(&trainer.status().unwrap().into(), "vocab_size"), 14.0);
    let first = train(&mut trainer, 10);
    assert_eq!(num(&first, "step"), 10.0);
    assert!(num(&first, "tokens_per_s") > 0.0 && num(&first, "lr") > 0.0);
    let losses: js_sys::Array = get(&first, "losses").dyn_into().unwrap();
    assert_eq!(losses.length(), 10);
    let start = losses.get(0).as_f64().unwrap();
    let last = train(&mut trainer, 50);
    assert!(last_loss(&last) < start * 0.7, "loss went from {start} to {}", last_loss(&last));
    let eval = perform(&mut trainer, "evaluation");
    assert!(num(&eval, "val_loss").is_finite() && num(&eval, "train_loss") < start);
}

#[wasm_bindgen_test]
fn samples_stream_until_the_length_is_reached() {
    let mut trainer = new_run(TINY, &text()).unwrap();
    let options = typed(r#"{"prompt": "the ", "max_new_tokens": 25, "temperature": 1.0, "top_k": 5}"#);
    let mut out = trainer.sample(4, Some(options)).unwrap().unwrap();
    while let Some(chunk) = trainer.sample(4, None).unwrap() {
        out.push_str(&chunk);
    }
    assert_eq!(out.chars().count(), 25);
    let err = trainer.sample(4, Some(typed(r#"{"prompt": "THE"}"#))).unwrap_err();
    assert!(message(err).contains("'T'"));
    let err = trainer.sample(1, None).unwrap_err();
    assert!(message(err).contains("start a sample"));
    let next_tokens = |temperature: f32| {
        let request = format!(r#"{{"ask": "next_tokens", "prompt": "the ", "temperature": {temperature}, "k": 5}}"#);
        trainer.ask(typed(&request)).map(|answer| get(&answer.into(), "next_tokens"))
    };
    let next: js_sys::Array = get(&next_tokens(1.0).unwrap(), "tokens").dyn_into().unwrap();
    assert_eq!(next.length(), 5);
    let probs: Vec<f64> = next.iter().map(|n| num(&n, "prob")).collect();
    assert!(probs.windows(2).all(|w| w[0] >= w[1]) && probs[0] > 0.0, "most likely first: {probs:?}");
    let greedy = next_tokens(0.0).unwrap();
    assert_eq!((num(&greedy, "temperature"), get(&greedy, "greedy").as_bool()), (1.0, Some(true)));
    assert!(message(next_tokens(-1.0).unwrap_err()).contains("temperature"));
    let err = trainer.sample(1, Some(typed(r#"{"topk": 3}"#))).unwrap_err();
    assert!(message(err).contains("topk"), "a misspelt option is named");
}

#[wasm_bindgen_test]
fn attention_maps_are_causal_distributions() {
    let trainer = new_run(TINY, &text()).unwrap();
    let maps: JsValue = trainer.attention(Some("the cat sat on".into())).unwrap().into();
    let t = num(&maps, "t") as usize;
    assert_eq!(t, 8, "cropped to the block size");
    let weights: Float32Array = get(&maps, "weights").dyn_into().unwrap();
    let w = weights.to_vec();
    assert_eq!(w.len(), 2 * 2 * t * t);
    for row in w.chunks(t).take(2 * 2 * t) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
    let q = 2; // the third query sees keys 0..=2 only
    assert!(w[q * t + q + 1..(q + 1) * t].iter().all(|&x| x == 0.0));
    let tokens: js_sys::Array = get(&maps, "tokens").dyn_into().unwrap();
    assert_eq!(tokens.get(0).as_string().unwrap(), "t", "the last 8 characters: \"t sat on\"");
    assert!(message(trainer.attention(Some(String::new())).unwrap_err()).contains("text"));
    let lapse: JsValue = trainer.attention(None).unwrap().into();
    assert_eq!(js_sys::Array::from(&get(&lapse, "steps")).length(), 0, "no evaluation yet: an empty time-lapse");
}

#[wasm_bindgen_test]
fn save_and_load_continue_the_same_run() {
    let mut trainer = new_run(TINY, &text()).unwrap();
    train(&mut trainer, 3);
    assert!(get(&trainer.details().unwrap().into(), "last_sample").is_undefined());
    trainer.sample(1, Some(typed(r#"{"prompt": "the ", "temperature": 0.5, "seed": 7}"#))).unwrap();
    let bytes = trainer.save().unwrap();
    let mut restored = Run::open(&bytes).unwrap();
    assert_eq!(get(&restored.status().unwrap().into(), "has_text").as_bool(), Some(false));
    restored.use_text(&text()).unwrap();
    assert_eq!(num(&restored.status().unwrap().into(), "step"), 3.0);
    let sampling = get(&restored.details().unwrap().into(), "last_sample");
    assert_eq!(get(&sampling, "prompt").as_string().unwrap(), "the ");
    assert_eq!((num(&sampling, "temperature"), num(&sampling, "seed")), (0.5, 7.0), "the last generation's settings");
    let settings = get(&restored.details().unwrap().into(), "settings");
    let recipe = get(&settings, "train");
    Reflect::set(&recipe, &"max_iters".into(), &2.into()).unwrap();
    let err = restored.update_settings(Ts::new_unchecked(settings.clone()), budget()).unwrap_err();
    assert!(message(err).contains("3 steps already done"));
    Reflect::set(&recipe, &"max_iters".into(), &40.into()).unwrap();
    restored.update_settings(Ts::new_unchecked(settings), budget()).unwrap();
    assert_eq!(num(&get(&get(&restored.details().unwrap().into(), "settings"), "train"), "max_iters"), 40.0);
    let losses: js_sys::Array = get(&get(&restored.details().unwrap().into(), "history"), "losses").dyn_into().unwrap();
    assert_eq!(losses.length(), 3);
    let settings = get(&restored.details().unwrap().into(), "settings");
    assert_eq!(num(&get(&settings, "model"), "n_embd"), 16.0);
    let a = last_loss(&train(&mut trainer, 1));
    let b = last_loss(&train(&mut restored, 1));
    assert_eq!(a.to_bits(), b.to_bits(), "the restored run continues exactly");

    let err = Run::open(&bytes[..bytes.len() / 3]).err().unwrap();
    assert!(message(err).contains("not a readable checkpoint"));
    let fit: JsValue = restored.use_text("the ZEBRA!").unwrap().into();
    assert_eq!(JSON::stringify(&get(&fit, "missing")).unwrap(), r#"["!","A","B","E","R","Z"]"#);
    assert_eq!(get(&fit, "kept").as_string().unwrap(), "the ");
}

#[wasm_bindgen_test]
fn an_export_comes_back_with_its_text() {
    let mut trainer = new_run(TINY, &text()).unwrap();
    train(&mut trainer, 2);
    assert_eq!(trainer.left_out(), Vec::<String>::new(), "nanoGPT and Transformers both hold this model");
    let zip = trainer.export("names").unwrap();
    let imported = import_run(vec!["names-export.zip".into()], vec![js_sys::Uint8Array::from(&zip[..])]).unwrap();
    assert_eq!((imported.from.as_str(), imported.text.as_deref()), ("nanoGPT", Some(text().as_str())));
    let back = Run::open(&imported.checkpoint).unwrap();
    assert_eq!(num(&back.status().unwrap().into(), "step"), 2.0);
    let err = import_run(vec!["notes.txt".into()], vec![js_sys::Uint8Array::from(&b"hello"[..])]).err().unwrap();
    assert!(message(err).contains("none of these files is a model"));
}

#[wasm_bindgen_test]
fn byte_pair_models_train_sample_and_list_their_merges() {
    let config = TINY.replacen('{', r#"{"tokenizer": "bpe", "bpe_vocab_size": 280,"#, 1);
    let mut trainer = new_run(&config, &text()).unwrap();
    let vocab = num(&trainer.status().unwrap().into(), "vocab_size") as usize;
    assert!(vocab > 256);
    let merges: js_sys::Array = get(&trainer.details().unwrap().into(), "merges").dyn_into().unwrap();
    assert_eq!(merges.length() as usize, vocab - 256);
    train(&mut trainer, 2);
    trainer.sample(3, Some(typed(r#"{"prompt": "the ünïcode 👋 prompt", "max_new_tokens": 10}"#))).unwrap();
    while trainer.sample(3, None).unwrap().is_some() {}
    let stats = json(r#"{"chars": 5000, "vocab_size": 20}"#);
    let described: JsValue =
        describe_model(typed(r#"{"tokenizer": "bpe", "bpe_vocab_size": 100}"#), Ts::new_unchecked(stats), budget())
            .unwrap()
            .into();
    let problem = js_sys::Array::from(&get(&described, "errors")).get(0);
    assert!(get(&problem, "message").as_string().unwrap().contains("256 to"));
}

#[wasm_bindgen_test]
fn a_task_trains_reports_accuracy_and_answers_problems() {
    let describe = |task: &str| -> JsValue {
        let settings = typed(&format!(r#"{{"model": {{"block_size": 5}}, "task": {task}}}"#));
        describe_model(settings, typed(r#"{"chars": 0, "vocab_size": 0}"#), budget()).unwrap().into()
    };
    let summary = get(&describe(r#"{"name": "modular", "p": 7, "train_fraction": 0.5}"#), "task");
    assert_eq!((num(&summary, "problems"), num(&summary, "train_problems")), (49.0, 25.0));
    let invalid = describe(r#"{"name": "modular", "p": 1}"#);
    assert!(get(&invalid, "task").is_undefined(), "invalid task settings make nothing");
    let error = js_sys::Array::from(&get(&invalid, "errors")).get(0);
    assert!(get(&error, "message").as_string().unwrap().contains("p must be a whole number from 2"));
    let settings = r#"{"model": {"n_layer": 2, "n_head": 2, "n_embd": 32, "block_size": 7, "bias": false},
        "train": {"batch_size": 16, "learning_rate": 0.003, "min_lr": 0.0003, "warmup_iters": 10, "max_iters": 300, "eval_iters": 4},
        "task": {"name": "reverse", "length": 3, "symbols": 4, "train_fraction": 0.5}}"#;
    let mut run = new_run(settings, "").unwrap();
    train(&mut run, 300);
    let evaluation = perform(&mut run, "evaluation");
    assert!(num(&evaluation, "val_accuracy") > 0.3, "{:?}", JSON::stringify(&evaluation));
    let solved: JsValue = run.ask(typed(r#"{"ask": "solve", "typed": "dab"}"#)).unwrap().into();
    assert_eq!(get(&get(&solved, "solution"), "expected").as_string().unwrap(), "bad");
    let err = run.ask(typed(r#"{"ask": "solve", "typed": "cxb"}"#)).unwrap_err();
    assert!(message(err).contains("'x' is not one of this task's symbols"));
    let shown = get(&run.ask(typed(r#"{"ask": "solutions", "n": 4}"#)).unwrap().into(), "solutions");
    let shown: js_sys::Array = shown.dyn_into().unwrap();
    assert_eq!(shown.length(), 4);
    assert!(message(run.use_text("text").unwrap_err()).contains("takes no text"));
}

/// A message's header and floats.
fn message_parts(message: &JsValue) -> (String, Option<Float32Array>) {
    (get(message, "header").as_string().unwrap(), get(message, "data").dyn_into().ok())
}

/// Answers `orders` (and the orders each reply frees) with `replica`, as a helper Web Worker would.
fn answer_all(run: &mut Run, replica: &mut Replica, orders: js_sys::Array) {
    for order in orders.iter() {
        let (header, data) = message_parts(&order);
        let reply: JsValue = replica.answer(&header, data, false).unwrap().into();
        let (header, data) = message_parts(&reply);
        let more = run.accept(&header, data).unwrap().dyn_into().unwrap();
        answer_all(run, replica, more);
    }
}

#[wasm_bindgen_test]
fn a_helper_computes_what_the_run_would_alone_with_muon() {
    // 48 × 8 tokens: two shards a step, one for the helper; and Muon's Newton–Schulz pieces are
    // shared too, the helper orthogonalising its share.
    let settings = r#"{"model": {"n_layer": 1, "n_head": 2, "n_embd": 16, "block_size": 8, "bias": false},
        "train": {"batch_size": 48, "max_iters": 10, "warmup_iters": 2, "eval_iters": 2, "optimizer": "muon"}}"#;
    let (mut alone, mut shared) = (new_run(settings, &text()).unwrap(), new_run(settings, &text()).unwrap());
    train(&mut alone, 3);
    let config = get(&get(&shared.details().unwrap().into(), "settings"), "model");
    let mut replica = Replica::new(Ts::new_unchecked(config), None).unwrap();
    let mut sent = 0;
    for kind in ["step", "step", "step", "evaluation"] {
        let mut progress: JsValue = shared.begin(typed(&format!("{kind:?}")), vec![1]).unwrap().into();
        loop {
            let orders: js_sys::Array = get(&progress, "orders").dyn_into().unwrap();
            sent += orders.length();
            answer_all(&mut shared, &mut replica, orders);
            if get(&progress, "next").as_string().unwrap() == "done" {
                break;
            }
            progress = shared.advance().unwrap().into();
        }
        if kind == "evaluation" {
            let outcome = get(&progress, "outcome");
            let evaluation = perform(&mut alone, "evaluation");
            assert_eq!(num(&outcome, "val_loss").to_bits(), num(&evaluation, "val_loss").to_bits());
        }
    }
    assert!(sent >= 7, "each step's shards and its pieces went to the helper, and the evaluation's batches");
    let losses = |run: &Run| JSON::stringify(&get(&get(&run.details().unwrap().into(), "history"), "losses")).unwrap();
    assert_eq!(losses(&shared), losses(&alone));
    assert_eq!(last_loss(&train(&mut shared, 1)).to_bits(), last_loss(&train(&mut alone, 1)).to_bits());
    assert!(message(replica.answer("{}", None, false).unwrap_err()).contains("an order from another worker"));
    assert!(message(shared.begin(typed(r#""nap""#), vec![1]).unwrap_err()).contains("unknown variant `nap`"));
}

#[wasm_bindgen_test]
fn this_build_matches_pytorch_to_1e5() {
    for (_, bytes) in pytorch::FIXTURES {
        pytorch::check(bytes);
    }
    pytorch::MUON_FIXTURES.into_iter().for_each(pytorch::check_muon);
    pytorch::check_sgd();
}
