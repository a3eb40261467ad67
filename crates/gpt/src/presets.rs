//! Named starting points shared by the page and the CLI.

use crate::config::GPTConfig;
use crate::ops::{Activation, NormKind};
use crate::settings::Settings;
use crate::train::TrainConfig;

/// A whole recipe: model shape, training and a character tokenizer (`vocab_size` is filled in
/// from the text).
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
    };
    let recipe = |model, train| Settings { model, train, ..Settings::default() };
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
    ]
}

/// The preset called `name`.
pub fn preset(name: &str) -> Option<Preset> {
    presets().into_iter().find(|p| p.name == name)
}
