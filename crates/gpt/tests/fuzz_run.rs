//! Fuzzes the API the page's worker drives (the bindings only convert JS values into these
//! types with serde): settings as JSON with missing, unknown and mistyped fields; settings with
//! every field zero, negative, huge or NaN; texts of every kind; and random calls on a run
//! (sampling, next tokens, attention, the inside views, text, settings changes, training, saving).
//! Every case ends in a result or a specific error, never a panic, and a failed call leaves the
//! run's weights, step and settings as they were. `FUZZ_SCALE=100` runs a hundred times more.

mod fuzz;

use fuzz::{assert_specific, cases, TEXT};
use gpt::ops::{Activation, NormKind};
use gpt::{Budget, GPTConfig, Run, SampleConfig, Settings, TokenizerKind, TrainConfig};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// A small budget, so an accepted case stays quick; the page's is larger but checked the same way.
const BUDGET: Budget = Budget { max_params: 200_000, max_training_bytes: 64 << 20 };

/// What a failed call must leave as it was: the step, every weight's bits, and the settings.
fn state(run: &Run) -> (usize, Vec<u32>, String) {
    let weights = run.weights().flat_map(|(_, w)| w.iter().map(|x| x.to_bits())).collect();
    (run.step_count(), weights, serde_json::to_string(&run.settings()).unwrap())
}

/// Texts a user might paste: empty, one character, whitespace only, mixed scripts, emoji,
/// control characters and NUL, markup, arbitrary Unicode, and usable text.
pub fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        any::<char>().prop_map(String::from),
        "[ \t\r\n]{0,40}",
        Just("漢字とかな、한국어, Ελληνικά, русский, عربى, हिन्दी".to_string()),
        Just("emoji 👋🏽 family 👨‍👩‍👧 flags 🇫🇷🇯🇵 ".repeat(4)),
        Just("nul\0in\0the\0middle\u{7f}\u{1b}[31m".to_string()),
        Just("<script>alert(1)</script><img src=x onerror=alert(2)>".to_string()),
        ".{0,120}",
        (1usize..12).prop_map(|n| TEXT.repeat(n)),
        (".{1,8}", 1usize..80).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// Text in the small run's alphabet (`TEXT`'s characters), so calls get past encoding.
pub fn known_text() -> impl Strategy<Value = String> {
    "[a-z .\n]{0,40}"
}

/// A value a user or a script might type where a count or a rate belongs: zero, negative,
/// absurdly large, NaN, infinite or random. Each field takes the kind it can hold.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    pub count: usize,
    pub float: f32,
}

pub fn edge() -> impl Strategy<Value = Edge> {
    let count = prop_oneof![Just(0), Just(1), Just(usize::MAX), Just(1usize << 40), any::<usize>()];
    let float = prop_oneof![
        Just(0.0),
        Just(-1.0),
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(1e30),
        Just(f32::MIN_POSITIVE),
        any::<f32>(),
    ];
    (count, float).prop_map(|(count, float)| Edge { count, float })
}

fn a_small_run() -> Vec<u8> {
    let model = GPTConfig { block_size: 8, n_layer: 1, n_head: 2, n_embd: 8, ..Default::default() };
    let train = TrainConfig { batch_size: 2, max_iters: 1_000, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let mut run = Run::create(&Settings { model, train, ..Default::default() }, &TEXT.repeat(4), &BUDGET).unwrap();
    run.train(2, &|| 0.0).unwrap();
    run.save().unwrap()
}

fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u64..64).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(-1)),
        (-10.0f64..10.0).prop_map(Value::from),
        Just(json!(1e300)),
        ".{0,8}".prop_map(Value::from),
        Just(json!("layernorm")),
        Just(json!("relu")),
        Just(json!("bpe")),
        Just(json!([1, 2])),
        Just(json!({})),
    ]
}

const MODEL_FIELDS: [&str; 11] = [
    "vocab_size",
    "block_size",
    "n_layer",
    "n_head",
    "n_embd",
    "dropout",
    "bias",
    "norm",
    "activation",
    "tie_weights",
    "n_kv_head",
];
const TRAIN_FIELDS: [&str; 15] = [
    "batch_size",
    "max_iters",
    "learning_rate",
    "min_lr",
    "warmup_iters",
    "lr_decay_iters",
    "decay_lr",
    "weight_decay",
    "beta1",
    "beta2",
    "grad_clip",
    "seed",
    "eval_interval",
    "eval_iters",
    "epochs",
];

/// An object with some of `fields` (one of them unknown to the schema), each any JSON value.
fn json_object(fields: &'static [&'static str]) -> impl Strategy<Value = Value> {
    proptest::collection::vec((proptest::sample::select(fields), json_value()), 0..6)
        .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>()))
}

fn settings_json() -> impl Strategy<Value = Value> {
    (json_object(&MODEL_FIELDS), json_object(&TRAIN_FIELDS), json_value(), json_value(), any::<u8>()).prop_map(
        |(model, train, tokenizer, bpe, mask)| {
            let mut settings = Map::new();
            let parts = [("model", model), ("train", train), ("tokenizer", tokenizer), ("bpe_vocab_size", bpe)];
            for (i, (key, value)) in parts.into_iter().enumerate() {
                if mask & (1 << i) != 0 {
                    settings.insert(key.into(), value);
                }
            }
            Value::Object(settings)
        },
    )
}

/// Settings a user might build: every field within range, then 0 to 3 fields (or the same one
/// twice) set to an edge value.
fn settings() -> BoxedStrategy<Settings> {
    let shape = (1usize..12, 1usize..3, 1usize..4, 1usize..5, 0.0f32..0.5);
    let choices = (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), 256usize..300);
    let counts = (1usize..5, 20usize..40, 0usize..10, 1usize..3, any::<u64>());
    let rates = (1e-4f32..1e-2, 0.0f32..1e-4, 0.0f32..0.2, 0.0f32..2.0, 0.5f32..0.95, 0.95f32..0.999);
    let edges = proptest::collection::vec((0..FIELDS, edge()), 0..4);
    (shape, choices, counts, rates, edges)
        .prop_map(|(shape, choices, counts, rates, edges)| {
            let (block_size, n_layer, n_head, per_head, dropout) = shape;
            let (bias, rms, relu, tie_weights, bpe, bpe_vocab_size) = choices;
            let model = GPTConfig {
                vocab_size: 0, // the tokenizer's, whatever is given here
                block_size,
                n_layer,
                n_head,
                n_embd: n_head * per_head,
                dropout,
                bias,
                norm: if rms { NormKind::RmsNorm } else { NormKind::LayerNorm },
                activation: if relu { Activation::Relu } else { Activation::Gelu },
                tie_weights,
            };
            let (batch_size, max_iters, warmup_iters, eval_iters, seed) = counts;
            let (learning_rate, min_lr, weight_decay, grad_clip, beta1, beta2) = rates;
            let train = TrainConfig {
                batch_size,
                max_iters,
                learning_rate,
                min_lr,
                warmup_iters,
                lr_decay_iters: None,
                decay_lr: true,
                weight_decay,
                beta1,
                beta2,
                grad_clip,
                seed,
                eval_interval: None,
                eval_iters,
            };
            let tokenizer = if bpe { TokenizerKind::Bpe } else { TokenizerKind::Char };
            let mut settings = Settings { model, train, tokenizer, bpe_vocab_size };
            for (field, edge) in edges {
                set_edge(&mut settings, field, edge);
            }
            settings
        })
        .boxed()
}

const FIELDS: usize = 18;

/// Sets field number `field` to `edge`, as a count or a rate as the field holds.
fn set_edge(s: &mut Settings, field: usize, Edge { count, float }: Edge) {
    let (m, t) = (&mut s.model, &mut s.train);
    match field {
        0 => m.block_size = count,
        1 => m.n_layer = count,
        2 => m.n_head = count,
        3 => m.n_embd = count,
        4 => m.dropout = float,
        5 => t.batch_size = count,
        6 => t.max_iters = count,
        7 => t.learning_rate = float,
        8 => t.min_lr = float,
        9 => t.warmup_iters = count,
        10 => t.lr_decay_iters = Some(count),
        11 => t.weight_decay = float,
        12 => t.beta1 = float,
        13 => t.beta2 = float,
        14 => t.grad_clip = float,
        15 => t.eval_interval = Some(count),
        16 => t.eval_iters = count,
        _ => s.bpe_vocab_size = count,
    }
}

fn texts() -> BoxedStrategy<String> {
    prop_oneof![any_text(), known_text()].boxed()
}

fn sample_config() -> BoxedStrategy<SampleConfig> {
    let max_new_tokens = prop_oneof![4 => 0usize..40, 1 => Just(100_001usize), 1 => Just(usize::MAX)];
    let temperature = prop_oneof![3 => 0.0f32..2.0, 1 => edge().prop_map(|e| e.float)];
    let top_k = prop_oneof![3 => 0usize..10, 1 => edge().prop_map(|e| e.count)];
    (texts(), temperature, top_k, any::<u64>(), max_new_tokens)
        .prop_map(|(prompt, temperature, top_k, seed, max_new_tokens)| SampleConfig {
            prompt,
            temperature,
            top_k,
            seed,
            max_new_tokens,
        })
        .boxed()
}

fn usable_or_any_text() -> BoxedStrategy<String> {
    prop_oneof![any_text(), (1usize..12).prop_map(|n| TEXT.repeat(n))].boxed()
}

/// One call the page can make on a run.
#[derive(Debug, Clone)]
enum Call {
    Sample(SampleConfig, usize),
    /// A prompt, a temperature and a count, with the edge value in one of them half the time.
    NextTokens(String, f32, usize, Edge),
    Attention(String),
    Inside(String, String),
    UseText(String),
    /// New settings; with `true`, on the run's own architecture, tokenizer and seed, as the
    /// page's paused form sends them.
    UpdateSettings(Settings, bool),
    SetMaxIters(usize),
    Train(usize),
    Evaluate,
    Save,
}

/// Boxed, as the other composite strategies: unboxed, their value trees overflow a test
/// thread's stack in debug builds.
fn call() -> BoxedStrategy<Call> {
    let chunk = prop_oneof![3 => 0usize..16, 1 => Just(usize::MAX)];
    prop_oneof![
        (sample_config(), chunk).prop_map(|(c, n)| Call::Sample(c, n)),
        (texts(), 0.0f32..2.0, 0usize..10, edge()).prop_map(|(p, t, k, e)| Call::NextTokens(p, t, k, e)),
        texts().prop_map(Call::Attention),
        (texts(), texts()).prop_map(|(probe, prompt)| Call::Inside(probe, prompt)),
        texts().prop_map(Call::UseText),
        (settings(), any::<bool>()).prop_map(|(s, same_model)| Call::UpdateSettings(s, same_model)),
        prop_oneof![0usize..2_000, edge().prop_map(|e| e.count)].prop_map(Call::SetMaxIters),
        (0usize..3).prop_map(Call::Train),
        Just(Call::Evaluate),
        Just(Call::Save),
    ]
    .boxed()
}

/// Makes `call`; true when it succeeded. Only training may change the weights and step, and only
/// a successful settings call the settings.
fn make(run: &mut Run, call: &Call) -> bool {
    let before = state(run);
    let result = match call {
        Call::Sample(config, chunk) => run.start_sample(config.clone()).and_then(|()| {
            while run.sample_next(*chunk)?.is_some() {}
            Ok(())
        }),
        Call::NextTokens(prompt, temperature, k, edge) => {
            let (temperature, k) = match edge.count % 4 {
                0 => (edge.float, *k),
                1 => (*temperature, edge.count),
                _ => (*temperature, *k),
            };
            run.next_tokens(prompt, temperature, k).map(drop)
        }
        Call::Attention(text) => run.attention(text).map(drop),
        Call::Inside(probe, prompt) => run.inside(probe, prompt).map(drop),
        Call::UseText(text) => run.use_text(text),
        Call::UpdateSettings(settings, same_model) => {
            let mut new = settings.clone();
            if *same_model {
                let now = run.settings();
                new.model = gpt::GPTConfig { dropout: new.model.dropout, ..now.model };
                (new.tokenizer, new.bpe_vocab_size, new.train.seed) =
                    (now.tokenizer, now.bpe_vocab_size, now.train.seed);
            }
            run.update_settings(&new, &BUDGET)
        }
        Call::SetMaxIters(n) => run.set_max_iters(*n),
        Call::Train(n) => run.train(*n, &|| 0.0).map(drop),
        Call::Evaluate => run.evaluate().map(drop),
        Call::Save => run.save().map(drop),
    };
    let after = state(run);
    match &result {
        Err(e) => {
            assert_specific(e);
            assert!(before == after, "{call:?} failed ({e}) and changed the run");
        }
        Ok(()) if matches!(call, Call::Train(_) | Call::Evaluate) => {}
        Ok(()) if matches!(call, Call::UpdateSettings(..) | Call::SetMaxIters(_)) => {
            assert!((before.0, &before.1) == (after.0, &after.1), "{call:?} changed the weights");
        }
        Ok(()) => assert!(before == after, "{call:?} changed the run"),
    }
    result.is_ok()
}

proptest! {
    #![proptest_config(cases(2_000))]

    /// Settings as the page sends them, field by field from JSON: each is read or refused.
    #[test]
    fn settings_from_json_are_read_or_refused(value in settings_json(), text in any_text()) {
        match serde_json::from_value::<Settings>(value) {
            Ok(settings) => {
                if let Err(e) = Run::create(&settings, &text, &BUDGET) {
                    assert_specific(&e);
                }
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

proptest! {
    #![proptest_config(cases(3_000))]

    /// Every field out of range, alone or together, on every kind of text: a run or a specific
    /// error, and what the form shows agrees with what creating the run says.
    #[test]
    fn any_settings_on_any_text_build_a_run_or_say_why_not(settings in settings(), text in usable_or_any_text()) {
        let described = settings.describe(&gpt::TextStats::of(&text), &BUDGET);
        match Run::create(&settings, &text, &BUDGET) {
            Ok(mut run) => {
                prop_assert!(described.problems.is_empty(), "created, yet the form shows {:?}", described.problems);
                make(&mut run, &Call::Train(1));
                make(&mut run, &Call::Sample(SampleConfig { max_new_tokens: 8, ..Default::default() }, 4));
            }
            Err(e) => assert_specific(&e),
        }
    }
}

proptest! {
    #![proptest_config(cases(5_000))]

    /// Random calls on a trained run, as a user clicking around would make them.
    #[test]
    fn calls_on_a_run_succeed_or_leave_it_as_it_was(calls in proptest::collection::vec(call(), 1..6)) {
        thread_local!(static SAVED: Vec<u8> = a_small_run());
        let mut run = SAVED.with(|bytes| Run::open(bytes)).unwrap();
        run.use_text(&TEXT.repeat(4)).unwrap();
        for call in &calls {
            make(&mut run, call);
        }
    }
}
