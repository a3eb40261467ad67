//! Named starting points shared by the page and the CLI: three for texts, and one for each task
//! that makes its phenomenon appear within minutes on a laptop's CPU.

use crate::config::GPTConfig;
use crate::data::{TaskConfig, TaskName};
use crate::ops::{Activation, NormKind};
use crate::optim::OptimizerKind;
use crate::settings::Settings;
use crate::train::TrainConfig;

/// A whole recipe: model shape, training and a character tokenizer (`vocab_size` is filled in
/// from the text), or a task.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub settings: Settings,
}

/// The presets, in the order the page lists them.
pub fn presets() -> Vec<Preset> {
    let small = |n_layer, n_head, n_embd, block_size| GPTConfig {
        vocab_size: 0,
        block_size,
        n_layer,
        n_head,
        n_embd,
        dropout: 0.0,
        bias: false,
        norm: NormKind::LayerNorm,
        activation: Activation::Gelu,
        tie_weights: true,
        rope: false,
        qk_norm: false,
    };
    let recipe = |model, train| Settings { model, train, ..Settings::default() };
    let task = |model, train, task| Settings { model, train, task: Some(task), ..Settings::default() };
    let quick = |batch_size, max_iters, learning_rate: f32, eval_interval| TrainConfig {
        batch_size,
        max_iters,
        learning_rate,
        min_lr: learning_rate / 10.0,
        warmup_iters: 50,
        eval_interval: Some(eval_interval),
        eval_iters: 4,
        ..TrainConfig::default()
    };
    vec![
        Preset {
            name: "tiny",
            description: "2 layers, 64 channels: learns visibly in about 30 seconds",
            settings: recipe(
                small(2, 4, 64, 32),
                TrainConfig {
                    batch_size: 16,
                    max_iters: 600,
                    learning_rate: 3e-3,
                    min_lr: 3e-4,
                    warmup_iters: 30,
                    eval_iters: 8,
                    ..TrainConfig::default()
                },
            ),
        },
        Preset {
            name: "names",
            description: "makemore-like: 4 layers, 64 channels, 16-character context",
            settings: recipe(
                small(4, 4, 64, 16),
                TrainConfig {
                    batch_size: 32,
                    max_iters: 2000,
                    learning_rate: 2e-3,
                    min_lr: 2e-4,
                    warmup_iters: 100,
                    eval_iters: 10,
                    ..TrainConfig::default()
                },
            ),
        },
        Preset {
            name: "nano-cpu",
            description: "nanoGPT's CPU Shakespeare recipe: 4 layers, 128 channels, block 64, 2000 steps",
            settings: recipe(small(4, 4, 128, 64), TrainConfig::default()),
        },
        Preset {
            name: "nano-muon",
            description: "nanoGPT's CPU recipe, trained by Muon on the block matrices, with rotary positions \
                (RoPE) and QK-norm: 350 steps, not 2000, at rates 3e-3 (AdamW) and 0.04 (Muon), 50 warmup \
                steps. A Muon step costs about 1.5 of AdamW's, RoPE and QK-norm make each step count for \
                more, and a sixth as many steps beat nanoGPT's validation loss, in about a third of its time",
            settings: recipe(
                GPTConfig { rope: true, qk_norm: true, ..small(4, 4, 128, 64) },
                TrainConfig {
                    max_iters: 350,
                    learning_rate: 3e-3,
                    min_lr: 3e-4,
                    warmup_iters: 50,
                    eval_interval: Some(175),
                    eval_iters: 10,
                    optimizer: OptimizerKind::Muon,
                    muon_lr: 0.04,
                    ..TrainConfig::default()
                },
            ),
        },
        Preset {
            name: "induction",
            description: "repeat task, 2 layers with rotary positions (RoPE): within a few hundred steps a \
                previous-token head and an induction head form together, and the loss drops",
            settings: task(
                GPTConfig { rope: true, ..small(2, 4, 64, 32) },
                TrainConfig { min_lr: 3e-3, ..quick(64, 1000, 3e-3, 25) },
                TaskConfig { name: TaskName::Repeat, length: 16, symbols: 26, ..TaskConfig::default() },
            ),
        },
        Preset {
            name: "reverse",
            description: "reverse task, 12 letters: 2 layers, 64 channels; the anti-diagonal forms as accuracy rises",
            settings: task(
                small(2, 4, 64, 25),
                quick(32, 1000, 3e-3, 10),
                TaskConfig { name: TaskName::Reverse, length: 12, symbols: 26, ..TaskConfig::default() },
            ),
        },
        Preset {
            name: "sort",
            description: "sort task, 8 letters: 2 layers, 64 channels; each answer letter learns to find the next \
                one in alphabetical order",
            settings: task(
                small(2, 4, 64, 17),
                quick(32, 3000, 3e-3, 50),
                TaskConfig { name: TaskName::Sort, length: 8, symbols: 26, ..TaskConfig::default() },
            ),
        },
        Preset {
            name: "addition",
            description: "addition task, two 3-digit numbers: 2 layers, 64 channels; the sum comes ones digit first",
            settings: task(
                small(2, 4, 64, 12),
                quick(64, 3000, 3e-3, 50),
                TaskConfig { name: TaskName::Addition, digits: 3, ..TaskConfig::default() },
            ),
        },
        Preset {
            name: "grokking",
            description: "modular addition mod 97, a quarter of the problems to train on: 1 layer, 128 channels, a \
                constant learning rate and strong weight decay. It memorises its training problems first; much later \
                it finds the rule",
            settings: task(
                small(1, 4, 128, 5),
                TrainConfig { weight_decay: 2.0, beta2: 0.98, min_lr: 1e-3, ..quick(512, 3000, 1e-3, 50) },
                TaskConfig { name: TaskName::Modular, p: 97, train_fraction: 0.25, ..TaskConfig::default() },
            ),
        },
    ]
}

/// The preset made for `task`.
pub fn for_task(task: TaskName) -> Preset {
    let name = match task {
        TaskName::Repeat => "induction",
        TaskName::Reverse => "reverse",
        TaskName::Sort => "sort",
        TaskName::Addition => "addition",
        TaskName::Modular => "grokking",
    };
    preset(name).expect("every task has a preset")
}

/// The preset called `name`.
pub fn preset(name: &str) -> Option<Preset> {
    presets().into_iter().find(|p| p.name == name)
}
