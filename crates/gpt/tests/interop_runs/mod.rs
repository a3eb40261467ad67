//! Small runs for the interop tests: a names text, a tiny model, a few steps.

use gpt::{Budget, GPTConfig, Run, Settings, TokenizerKind, TrainConfig};

pub const TEXT: &str = "anna\nbob\ncarla\ndavid\nemma\nzoë\n";

/// A run of `model` with `tokenizer` on the names, trained `steps` steps.
pub fn trained(model: GPTConfig, tokenizer: TokenizerKind, steps: usize) -> Run {
    let train = TrainConfig { batch_size: 2, max_iters: 3, warmup_iters: 0, eval_iters: 1, ..Default::default() };
    let settings = Settings { model, train, tokenizer, bpe_vocab_size: 270, ..Default::default() };
    let mut run = Run::create(&settings, &TEXT.repeat(20), &Budget::UNLIMITED).unwrap();
    for _ in 0..steps {
        run.step(&|| 0.0).unwrap();
    }
    run
}

/// Two layers of 8 channels, no biases.
pub fn small() -> GPTConfig {
    GPTConfig { block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, bias: false, ..Default::default() }
}

/// A run that trains on a task (which only the Transformers export holds).
pub fn task_run() -> Run {
    let task = gpt::TaskConfig::default();
    let train = TrainConfig { batch_size: 2, max_iters: 2, warmup_iters: 0, eval_iters: 1, ..Default::default() };
    let settings =
        Settings { model: GPTConfig { block_size: 32, ..small() }, train, task: Some(task), ..Default::default() };
    Run::create(&settings, "", &Budget::UNLIMITED).unwrap()
}
