//! What the fuzz tests feed the run: texts, edge values, settings (typed, and as JSON with missing,
//! unknown and mistyped fields) and sampling options.

use super::fields::{MODEL_FIELDS, TASK_FIELDS};
use super::fuzz::TEXT;
use gpt::fields::Kind;
use gpt::ops::{Activation, NormKind};
use gpt::{GPTConfig, SampleConfig, Settings, TaskConfig, TokenizerKind, TrainConfig};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

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

pub fn json_value() -> impl Strategy<Value = Value> {
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
        Just(json!("modular")),
        Just(json!("muon")),
        Just(json!("repeat")),
        Just(json!([1, 2])),
        Just(json!({})),
    ]
}

const TRAIN_FIELDS: [&str; 18] = [
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
    "optimizer",
    "muon_lr",
    "muon_momentum",
    "sgd_momentum",
];

/// An object with some of `fields` or a field unknown to the schema, each any JSON value.
pub fn json_object(fields: &[&'static str]) -> impl Strategy<Value = Value> {
    let names = [fields, &["epochs"]].concat();
    proptest::collection::vec((proptest::sample::select(names), json_value()), 0..6)
        .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>()))
}

pub fn settings_json() -> impl Strategy<Value = Value> {
    let parts = (json_object(&MODEL_FIELDS), json_object(&TRAIN_FIELDS), json_object(&TASK_FIELDS));
    (parts, json_value(), json_value(), any::<u8>()).prop_map(|((model, train, task), tokenizer, bpe, mask)| {
        let mut settings = Map::new();
        let parts =
            [("model", model), ("train", train), ("tokenizer", tokenizer), ("bpe_vocab_size", bpe), ("task", task)];
        for (i, (key, value)) in parts.into_iter().enumerate() {
            if mask & (1 << i) != 0 {
                settings.insert(key.into(), value);
            }
        }
        Value::Object(settings)
    })
}

/// A small task of any kind, or none (a text), three times in four.
fn task() -> impl Strategy<Value = Option<TaskConfig>> {
    let task = (0..gpt::TASKS.len(), proptest::collection::vec(0usize..8, 4), 0.05f32..0.95).prop_map(
        |(k, picks, train_fraction)| {
            let task = gpt::TASKS[k];
            let mut config = TaskConfig { train_fraction, ..TaskConfig::new(task, Value::Null, 0.9) };
            // Each of its own settings small, or one of its choices.
            for (field, pick) in task.fields().iter().zip(picks) {
                config = match field.accepts {
                    Kind::Count { min, .. } => config.with(field.name, min + pick),
                    Kind::Number { above, below, .. } => {
                        config.with(field.name, above + (below - above) * pick as f64 / 8.0)
                    }
                    Kind::Choice { options, .. } => config.with(field.name, options[pick % options.len()].0),
                };
            }
            config
        },
    );
    prop_oneof![3 => Just(None), 1 => task.prop_map(Some)]
}

/// Settings a user might build: every field within range, then 0 to 3 fields (or the same one
/// twice) set to an edge value.
pub fn settings() -> BoxedStrategy<Settings> {
    let shape = (1usize..12, 1usize..3, 1usize..4, 1usize..5, 0.0f32..0.5, any::<bool>());
    // The optimiser (0 AdamW, 1 Muon, 2 SGD), a rate and a momentum of its own.
    let own = (0usize..3, 1e-3f32..0.1, 0.5f32..0.99);
    let choices = (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), 256usize..300);
    let counts = (1usize..5, 20usize..40, 0usize..10, 1usize..3, any::<u64>());
    let rates = (1e-4f32..1e-2, 0.0f32..1e-4, 0.0f32..0.2, 0.0f32..2.0, 0.5f32..0.95, 0.95f32..0.999);
    let edges = proptest::collection::vec((0..FIELDS, edge()), 0..4);
    (shape, choices, counts, rates, edges, (task(), own, any::<bool>()))
        .prop_map(|(shape, choices, counts, rates, edges, (task, (optimizer, own_lr, momentum), qk_norm))| {
            let (block_size, n_layer, n_head, per_head, dropout, rope) = shape;
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
                rope,
                qk_norm,
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
                ..TrainConfig::default()
            };
            let train = match optimizer {
                1 => train.with_optimizer("muon", json!({"muon_lr": own_lr, "muon_momentum": momentum})),
                2 => train.with_optimizer("sgd", json!({"sgd_momentum": momentum})),
                _ => train,
            };
            let tokenizer = if bpe { TokenizerKind::Bpe } else { TokenizerKind::Char };
            let mut settings = Settings { model, train, tokenizer, bpe_vocab_size, task, built: None };
            for (field, edge) in edges {
                set_edge(&mut settings, field, edge);
            }
            settings
        })
        .boxed()
}

const FIELDS: usize = 26;

/// Sets field number `field` to `edge`, as a count or a rate as the field holds.
pub fn set_edge(s: &mut Settings, field: usize, Edge { count, float }: Edge) {
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
        17 => s.bpe_vocab_size = count,
        18 => _ = t.optimizer_settings.insert("muon_lr".into(), json!(float)),
        19 => _ = t.optimizer_settings.insert("muon_momentum".into(), json!(float)),
        20 => _ = t.optimizer_settings.insert("sgd_momentum".into(), json!(float)),
        _ => {
            let task = s.task.get_or_insert_with(TaskConfig::default);
            let own = task.task().fields();
            match own.get(field - 21) {
                Some(setting) => *task = task.clone().with(setting.name, count),
                None => task.train_fraction = float,
            }
        }
    }
}

pub fn texts() -> BoxedStrategy<String> {
    prop_oneof![any_text(), known_text()].boxed()
}

pub fn sample_config() -> BoxedStrategy<SampleConfig> {
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

pub fn usable_or_any_text() -> BoxedStrategy<String> {
    prop_oneof![any_text(), (1usize..12).prop_map(|n| TEXT.repeat(n))].boxed()
}
