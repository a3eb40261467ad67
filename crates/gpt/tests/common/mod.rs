//! Runs the integration tests share.

use gpt::{Budget, GPTConfig, Run, Settings, TrainConfig};

pub const TEXT: &str = "the cat sat on the mat. the dog sat on the log. the cat and the dog sat on the mat. ";

/// A run with `dropout`, on batches of `(sequences, tokens)`.
pub fn setup_with(lr: f32, grad_clip: f32, dropout: f32, (batch_size, block_size): (usize, usize)) -> Run {
    let text = TEXT.repeat(20);
    let model = GPTConfig { dropout, block_size, n_layer: 2, n_head: 2, n_embd: 32, bias: false, ..Default::default() };
    let train = TrainConfig {
        batch_size,
        max_iters: 60,
        learning_rate: lr,
        min_lr: lr / 10.0,
        warmup_iters: 5,
        grad_clip,
        seed: 7,
        eval_iters: 4,
        ..Default::default()
    };
    Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap()
}

/// Tests time nothing.
pub fn no_clock() -> f64 {
    0.0
}

/// A run trained by Muon (the block matrices) and AdamW (the rest).
pub fn muon_run() -> Run {
    muon_run_with(serde_json::Value::Null)
}

/// The same with Muon's own `settings`.
pub fn muon_run_with(settings: serde_json::Value) -> Run {
    optimizer_run("muon", settings, 3e-3)
}

/// A small run trained by the optimiser `name`, with its own `settings`, at peak rate `learning_rate`.
pub fn optimizer_run(name: &str, settings: serde_json::Value, learning_rate: f32) -> Run {
    let text = TEXT.repeat(20);
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 32, bias: false, ..Default::default() };
    let train = TrainConfig {
        batch_size: 24,
        max_iters: 60,
        learning_rate,
        min_lr: learning_rate / 10.0,
        warmup_iters: 5,
        seed: 11,
        eval_iters: 4,
        ..Default::default()
    }
    .with_optimizer(name, settings);
    Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap()
}
