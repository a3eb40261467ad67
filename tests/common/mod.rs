//! The binding tests, shared by the page suite (`web.rs`) and the worker suite (`worker.rs`).

use gpt_playground::{describe_model, presets, version, Trainer};
use js_sys::{Float32Array, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const TINY: &str = r#"{"model": {"n_layer": 2, "n_head": 2, "n_embd": 16, "block_size": 8, "bias": false},
    "train": {"batch_size": 8, "learning_rate": 0.01, "min_lr": 0.001, "warmup_iters": 5, "max_iters": 60, "lr_decay_iters": 60}}"#;

fn json(s: &str) -> JsValue {
    JSON::parse(s).expect("test JSON")
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
    assert_eq!(names, ["tiny", "names", "nano-cpu"]);
    let model = get(&list.get(2), "model");
    assert_eq!(num(&model, "n_embd"), 128.0);
}

#[wasm_bindgen_test]
fn describes_a_model_or_says_what_is_wrong() {
    let size = describe_model(json(TINY), 65).unwrap();
    // 65×16 + 8×16 embeddings, 2 blocks of 3,136 weights and 32 norm weights, the final norm.
    assert_eq!(num(&size, "params"), (65 * 16 + 8 * 16 + 2 * (16 * 48 + 16 * 16 + 16 * 64 * 2 + 32) + 16) as f64);
    let err = describe_model(json(r#"{"model": {"n_head": 5, "n_embd": 16}}"#), 65).unwrap_err();
    assert!(message(err).contains("divisible by n_head"));
}

#[wasm_bindgen_test]
fn bad_inputs_are_errors_not_panics() {
    let cases = [
        (r#"{"model": {"n_layer": "four"}}"#, text(), "config"),
        (r#"{"model": {"n_layer": -1}}"#, text(), "config"),
        (r#"{"model": {"dropout": 1.5}}"#, text(), "dropout"),
        (r#"{"modle": {}}"#, text(), "modle"),
        (r#"{"model": {"n_layr": 2}}"#, text(), "n_layr"),
        (r#"{"train": {"learning_rate": 0}}"#, text(), "learning_rate"),
        (r#"{"model": {"n_layer": 1000000, "n_embd": 4096, "n_head": 8}}"#, text(), "parameters"),
        ("null", text(), "config"),
        (TINY, String::new(), "empty"),
        (TINY, "short".into(), "too short"),
    ];
    for (config, text, want) in cases {
        let err = Trainer::new(json(config), &text).err().expect("an error");
        let msg = message(err);
        assert!(msg.contains(want), "{config}: {msg:?} should mention {want:?}");
    }
}

#[wasm_bindgen_test]
fn training_lowers_the_loss() {
    let mut trainer = Trainer::new(json(TINY), &text()).unwrap();
    assert_eq!(trainer.vocab_size(), 14);
    let first = trainer.step(10).unwrap();
    assert_eq!(num(&first, "step"), 10.0);
    assert!(num(&first, "tokens_per_s") > 0.0 && num(&first, "lr") > 0.0);
    let losses: js_sys::Array = get(&first, "losses").dyn_into().unwrap();
    assert_eq!(losses.length(), 10);
    let start = losses.get(0).as_f64().unwrap();
    let last = trainer.step(50).unwrap();
    assert!(num(&last, "loss") < start * 0.7, "loss went from {start} to {}", num(&last, "loss"));
    let eval = trainer.evaluate(4).unwrap();
    assert!(num(&eval, "val_loss").is_finite() && num(&eval, "train_loss") < start);
}

#[wasm_bindgen_test]
fn samples_stream_until_the_length_is_reached() {
    let mut trainer = Trainer::new(json(TINY), &text()).unwrap();
    trainer.start_sample(json(r#"{"prompt": "the ", "max_new_tokens": 25, "temperature": 1.0, "top_k": 5}"#)).unwrap();
    let mut out = String::new();
    while let Some(chunk) = trainer.sample_next(4).unwrap() {
        out.push_str(&chunk);
    }
    assert_eq!(out.chars().count(), 25);
    let err = trainer.start_sample(json(r#"{"prompt": "THE"}"#)).unwrap_err();
    assert!(message(err).contains("'T'"));
    let err = trainer.sample_next(1).unwrap_err();
    assert!(message(err).contains("startSample"));
    let next: js_sys::Array = trainer.next_tokens("the ", 1.0, 5).unwrap().dyn_into().unwrap();
    assert_eq!(next.length(), 5);
    let probs: Vec<f64> = next.iter().map(|n| num(&n, "prob")).collect();
    assert!(probs.windows(2).all(|w| w[0] >= w[1]) && probs[0] > 0.0, "most likely first: {probs:?}");
    assert!(message(trainer.next_tokens("the ", 0.0, 5).unwrap_err()).contains("temperature"));
    let err = trainer.start_sample(json(r#"{"topk": 3}"#)).unwrap_err();
    assert!(message(err).contains("topk"), "a misspelt option is named");
}

#[wasm_bindgen_test]
fn attention_maps_are_causal_distributions() {
    let trainer = Trainer::new(json(TINY), &text()).unwrap();
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
    let mut trainer = Trainer::new(json(TINY), &text()).unwrap();
    trainer.step(3).unwrap();
    assert!(trainer.sampling().unwrap().is_undefined());
    trainer.start_sample(json(r#"{"prompt": "the ", "temperature": 0.5, "seed": 7}"#)).unwrap();
    let bytes = trainer.save().unwrap();
    let mut restored = Trainer::load(&bytes, &text()).unwrap();
    assert_eq!(restored.step_count(), 3);
    let sampling = restored.sampling().unwrap();
    assert_eq!(get(&sampling, "prompt").as_string().unwrap(), "the ");
    assert_eq!((num(&sampling, "temperature"), num(&sampling, "seed")), (0.5, 7.0), "the last generation's settings");
    assert!(message(restored.set_max_iters(2).unwrap_err()).contains("3 steps already done"));
    restored.set_max_iters(40).unwrap();
    assert_eq!(num(&get(&restored.settings().unwrap(), "train"), "max_iters"), 40.0);
    let losses: js_sys::Array = get(&restored.history().unwrap(), "losses").dyn_into().unwrap();
    assert_eq!(losses.length(), 3);
    let settings = restored.settings().unwrap();
    assert_eq!(num(&get(&settings, "model"), "n_embd"), 16.0);
    let a = num(&trainer.step(1).unwrap(), "loss");
    let b = num(&restored.step(1).unwrap(), "loss");
    assert_eq!(a.to_bits(), b.to_bits(), "the restored run continues exactly");

    let err = Trainer::load(&bytes[..bytes.len() / 3], &text()).err().unwrap();
    assert!(message(err).contains("not a readable checkpoint"));
    let err = Trainer::load(&bytes, "the cat sat on the mat. ZEBRA").err().unwrap();
    assert!(message(err).contains("'Z'"));
}

#[wasm_bindgen_test]
fn byte_pair_models_train_sample_and_list_their_merges() {
    let config = TINY.replacen('{', r#"{"tokenizer": "bpe", "bpe_vocab_size": 280,"#, 1);
    let mut trainer = Trainer::new(json(&config), &text()).unwrap();
    assert!(trainer.vocab_size() > 256);
    let merges: js_sys::Array = trainer.merges().unwrap().dyn_into().unwrap();
    assert_eq!(merges.length() as usize, trainer.vocab_size() - 256);
    trainer.step(2).unwrap();
    trainer.start_sample(json(r#"{"prompt": "the ünïcode 👋 prompt", "max_new_tokens": 10}"#)).unwrap();
    while trainer.sample_next(3).unwrap().is_some() {}
    let err = describe_model(json(r#"{"tokenizer": "bpe", "bpe_vocab_size": 100}"#), 20).unwrap_err();
    assert!(message(err).contains("256 to"));
}
