//! The binding tests, shared by the page suite (`web.rs`) and the worker suite (`worker.rs`),
//! and the model against PyTorch in this wasm build (`scripts/test.sh` runs both builds).

#[path = "../../crates/gpt/tests/pytorch/mod.rs"]
mod pytorch;

use gpt_playground::{describe_model, describe_task, import_run, presets, tasks, version, Replica, Run};
use js_sys::{Float32Array, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const TINY: &str = r#"{"model": {"n_layer": 2, "n_head": 2, "n_embd": 16, "block_size": 8, "bias": false},
    "train": {"batch_size": 8, "learning_rate": 0.01, "min_lr": 0.001, "warmup_iters": 5, "max_iters": 60, "eval_iters": 4}}"#;

/// The page's budget: a tab's wasm memory.
const BUDGET: &str = r#"{"max_params": 50000000, "max_training_bytes": 2147483648}"#;

fn json(s: &str) -> JsValue {
    JSON::parse(s).expect("test JSON")
}

fn budget() -> JsValue {
    json(BUDGET)
}

fn new_run(settings: &str, text: &str) -> Result<Run, JsValue> {
    Run::new(json(settings), text, budget())
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
fn reports_its_version() {
    assert_eq!(version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn lists_the_presets() {
    let list: js_sys::Array = presets().unwrap().dyn_into().unwrap();
    let names: Vec<String> = list.iter().map(|p| get(&p, "name").as_string().unwrap()).collect();
    assert_eq!(
        names,
        ["tiny", "names", "nano-cpu", "nano-muon", "induction", "reverse", "sort", "addition", "grokking"]
    );
    let model = get(&get(&list.get(2), "settings"), "model");
    assert_eq!(num(&model, "n_embd"), 128.0);
}

#[wasm_bindgen_test]
fn describes_a_model_or_says_what_is_wrong() {
    let names = json(r#"{"chars": 5000, "vocab_size": 65}"#);
    let size = get(&describe_model(json(TINY), names.clone(), budget()).unwrap(), "size");
    // 65×16 + 8×16 embeddings, 2 blocks of 3,136 weights and 32 norm weights, the final norm.
    assert_eq!(num(&size, "params"), (65 * 16 + 8 * 16 + 2 * (16 * 48 + 16 * 16 + 16 * 64 * 2 + 32) + 16) as f64);
    let described = describe_model(json(r#"{"model": {"n_head": 5, "n_embd": 16}}"#), names, budget()).unwrap();
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
    assert_eq!(num(&trainer.status().unwrap(), "vocab_size"), 14.0);
    let first = trainer.train(10).unwrap();
    assert_eq!(num(&first, "step"), 10.0);
    assert!(num(&first, "tokens_per_s") > 0.0 && num(&first, "lr") > 0.0);
    let losses: js_sys::Array = get(&first, "losses").dyn_into().unwrap();
    assert_eq!(losses.length(), 10);
    let start = losses.get(0).as_f64().unwrap();
    let last = trainer.train(50).unwrap();
    assert!(last_loss(&last) < start * 0.7, "loss went from {start} to {}", last_loss(&last));
    let eval = trainer.evaluate().unwrap();
    assert!(num(&eval, "val_loss").is_finite() && num(&eval, "train_loss") < start);
}

#[wasm_bindgen_test]
fn samples_stream_until_the_length_is_reached() {
    let mut trainer = new_run(TINY, &text()).unwrap();
    trainer.start_sample(json(r#"{"prompt": "the ", "max_new_tokens": 25, "temperature": 1.0, "top_k": 5}"#)).unwrap();
    let mut out = String::new();
    while let Some(chunk) = trainer.sample_next(4).unwrap() {
        out.push_str(&chunk);
    }
    assert_eq!(out.chars().count(), 25);
    let err = trainer.start_sample(json(r#"{"prompt": "THE"}"#)).unwrap_err();
    assert!(message(err).contains("'T'"));
    let err = trainer.sample_next(1).unwrap_err();
    assert!(message(err).contains("start a sample"));
    let next: js_sys::Array = get(&trainer.next_tokens("the ", 1.0, 5).unwrap(), "tokens").dyn_into().unwrap();
    assert_eq!(next.length(), 5);
    let probs: Vec<f64> = next.iter().map(|n| num(&n, "prob")).collect();
    assert!(probs.windows(2).all(|w| w[0] >= w[1]) && probs[0] > 0.0, "most likely first: {probs:?}");
    let greedy = trainer.next_tokens("the ", 0.0, 5).unwrap();
    assert_eq!((num(&greedy, "temperature"), get(&greedy, "greedy").as_bool()), (1.0, Some(true)));
    assert!(message(trainer.next_tokens("the ", -1.0, 5).unwrap_err()).contains("temperature"));
    let err = trainer.start_sample(json(r#"{"topk": 3}"#)).unwrap_err();
    assert!(message(err).contains("topk"), "a misspelt option is named");
}

#[wasm_bindgen_test]
fn attention_maps_are_causal_distributions() {
    let trainer = new_run(TINY, &text()).unwrap();
    let maps = trainer.attention("the cat sat on").unwrap();
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
    assert!(message(trainer.attention("").unwrap_err()).contains("text"));
}

#[wasm_bindgen_test]
fn save_and_load_continue_the_same_run() {
    let mut trainer = new_run(TINY, &text()).unwrap();
    trainer.train(3).unwrap();
    assert!(get(&trainer.details().unwrap(), "last_sample").is_undefined());
    trainer.start_sample(json(r#"{"prompt": "the ", "temperature": 0.5, "seed": 7}"#)).unwrap();
    let bytes = trainer.save().unwrap();
    let mut restored = Run::open(&bytes).unwrap();
    assert_eq!(get(&restored.status().unwrap(), "has_text").as_bool(), Some(false));
    restored.use_text(&text()).unwrap();
    assert_eq!(num(&restored.status().unwrap(), "step"), 3.0);
    let sampling = get(&restored.details().unwrap(), "last_sample");
    assert_eq!(get(&sampling, "prompt").as_string().unwrap(), "the ");
    assert_eq!((num(&sampling, "temperature"), num(&sampling, "seed")), (0.5, 7.0), "the last generation's settings");
    let settings = get(&restored.details().unwrap(), "settings");
    let train = get(&settings, "train");
    Reflect::set(&train, &"max_iters".into(), &2.into()).unwrap();
    assert!(message(restored.update_settings(settings.clone(), budget()).unwrap_err()).contains("3 steps already done"));
    Reflect::set(&train, &"max_iters".into(), &40.into()).unwrap();
    restored.update_settings(settings, budget()).unwrap();
    assert_eq!(num(&get(&get(&restored.details().unwrap(), "settings"), "train"), "max_iters"), 40.0);
    let losses: js_sys::Array = get(&get(&restored.details().unwrap(), "history"), "losses").dyn_into().unwrap();
    assert_eq!(losses.length(), 3);
    let settings = get(&restored.details().unwrap(), "settings");
    assert_eq!(num(&get(&settings, "model"), "n_embd"), 16.0);
    let a = last_loss(&trainer.train(1).unwrap());
    let b = last_loss(&restored.train(1).unwrap());
    assert_eq!(a.to_bits(), b.to_bits(), "the restored run continues exactly");

    let err = Run::open(&bytes[..bytes.len() / 3]).err().unwrap();
    assert!(message(err).contains("not a readable checkpoint"));
    let err = restored.use_text("the cat sat on the mat. ZEBRA").unwrap_err();
    assert!(message(err).contains("'Z'"));
    assert_eq!(restored.missing_chars("the ZEBRA!"), ["!", "A", "B", "E", "R", "Z"]);
    assert_eq!(restored.keep_known("the ZEBRA!"), "the ");
}

#[wasm_bindgen_test]
fn an_export_comes_back_with_its_text() {
    let mut trainer = new_run(TINY, &text()).unwrap();
    trainer.train(2).unwrap();
    assert!(trainer.export_left_out().is_empty(), "nanoGPT and Transformers both hold this model");
    let zip = trainer.export("names").unwrap();
    let imported = import_run(vec!["names-export.zip".into()], vec![js_sys::Uint8Array::from(&zip[..])]).unwrap();
    assert_eq!((imported.from.as_str(), imported.text.as_deref()), ("nanoGPT", Some(text().as_str())));
    let back = Run::open(&imported.checkpoint).unwrap();
    assert_eq!(num(&back.status().unwrap(), "step"), 2.0);
    let err = import_run(vec!["notes.txt".into()], vec![js_sys::Uint8Array::from(&b"hello"[..])]).err().unwrap();
    assert!(message(err).contains("none of these files is a model"));
}

#[wasm_bindgen_test]
fn byte_pair_models_train_sample_and_list_their_merges() {
    let config = TINY.replacen('{', r#"{"tokenizer": "bpe", "bpe_vocab_size": 280,"#, 1);
    let mut trainer = new_run(&config, &text()).unwrap();
    let vocab = num(&trainer.status().unwrap(), "vocab_size") as usize;
    assert!(vocab > 256);
    let merges: js_sys::Array = get(&trainer.details().unwrap(), "merges").dyn_into().unwrap();
    assert_eq!(merges.length() as usize, vocab - 256);
    trainer.train(2).unwrap();
    trainer.start_sample(json(r#"{"prompt": "the ünïcode 👋 prompt", "max_new_tokens": 10}"#)).unwrap();
    while trainer.sample_next(3).unwrap().is_some() {}
    let stats = json(r#"{"chars": 5000, "vocab_size": 20}"#);
    let described = describe_model(json(r#"{"tokenizer": "bpe", "bpe_vocab_size": 100}"#), stats, budget()).unwrap();
    let problem = js_sys::Array::from(&get(&described, "errors")).get(0);
    assert!(get(&problem, "message").as_string().unwrap().contains("256 to"));
}

#[wasm_bindgen_test]
fn a_task_trains_reports_accuracy_and_answers_problems() {
    let list: js_sys::Array = tasks().unwrap().dyn_into().unwrap();
    assert_eq!(list.length(), 5);
    let summary = describe_task(json(r#"{"name": "modular", "p": 7, "train_fraction": 0.5}"#)).unwrap();
    assert_eq!((num(&summary, "problems"), num(&summary, "train_problems")), (49.0, 25.0));
    let err = describe_task(json(r#"{"name": "modular", "p": 1}"#)).unwrap_err();
    assert!(message(err).contains("p must be a whole number from 2"));
    let settings = r#"{"model": {"n_layer": 2, "n_head": 2, "n_embd": 32, "block_size": 7, "bias": false},
        "train": {"batch_size": 16, "learning_rate": 0.003, "min_lr": 0.0003, "warmup_iters": 10, "max_iters": 300, "eval_iters": 4},
        "task": {"name": "reverse", "length": 3, "symbols": 4, "train_fraction": 0.5}}"#;
    let mut run = new_run(settings, "").unwrap();
    run.train(300).unwrap();
    let evaluation = run.evaluate().unwrap();
    assert!(num(&evaluation, "val_accuracy") > 0.3, "{:?}", JSON::stringify(&evaluation));
    let solved = run.solve("dab").unwrap();
    assert_eq!(get(&solved, "expected").as_string().unwrap(), "bad");
    assert!(message(run.solve("cxb").unwrap_err()).contains("'x' is not one of this task's symbols"));
    let shown: js_sys::Array = run.held_out_solutions(4).unwrap().dyn_into().unwrap();
    assert_eq!(shown.length(), 4);
    assert!(message(run.use_text("text").unwrap_err()).contains("takes no text"));
}

/// Answers `orders` (and the orders each reply frees) with `replica`, as a helper Web Worker would.
fn answer_all(run: &mut Run, replica: &mut Replica, orders: js_sys::Array) {
    for order in orders.iter() {
        let reply = replica.answer(order).unwrap();
        let more = run.accept(reply).unwrap();
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
    alone.train(3).unwrap();
    let config = get(&get(&shared.details().unwrap(), "settings"), "model");
    let mut replica = Replica::new(config).unwrap();
    let mut sent = 0;
    for kind in ["step", "step", "step", "evaluation"] {
        let mut progress = shared.begin(kind, 1).unwrap();
        loop {
            let orders: js_sys::Array = get(&progress, "orders").dyn_into().unwrap();
            sent += orders.length();
            answer_all(&mut shared, &mut replica, orders);
            if get(&progress, "next").as_string().unwrap() == "done" {
                break;
            }
            progress = shared.advance().unwrap();
        }
        if kind == "evaluation" {
            let outcome = get(&progress, "outcome");
            let evaluation = alone.evaluate().unwrap();
            assert_eq!(num(&outcome, "val_loss").to_bits(), num(&evaluation, "val_loss").to_bits());
        }
    }
    assert!(sent >= 7, "each step's shards and its pieces went to the helper, and the evaluation's batches");
    let losses = |run: &Run| JSON::stringify(&get(&get(&run.details().unwrap(), "history"), "losses")).unwrap();
    assert_eq!(losses(&shared), losses(&alone));
    assert_eq!(last_loss(&shared.train(1).unwrap()).to_bits(), last_loss(&alone.train(1).unwrap()).to_bits());
    assert!(message(replica.answer(json(r#"{"header": "{}"}"#)).unwrap_err()).contains("an order from another worker"));
    assert!(message(shared.begin("nap", 1).unwrap_err()).contains("a step or an evaluation"));
}

#[wasm_bindgen_test]
fn this_build_matches_pytorch_to_1e5() {
    for (_, bytes) in pytorch::FIXTURES {
        pytorch::check(bytes);
    }
    pytorch::check_muon(pytorch::MUON_FIXTURE);
}
