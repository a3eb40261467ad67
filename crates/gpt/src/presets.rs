//! Named starting points shared by the page and the CLI: five for texts, then each task's own
//! (see [`Task::preset`]), which makes its phenomenon appear within minutes on a laptop's CPU.

use crate::built::BUILT;
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::data::{Task, TaskConfig, TASKS};
use crate::settings::Settings;

/// A whole recipe: model shape, training and a character tokenizer (`vocab_size` is filled in
/// from the text), or a task.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub settings: Settings,
}

/// The presets, in the order the page lists them.
pub fn presets() -> Vec<Preset> {
    let small = GPTConfig::small;
    let recipe = |model, train| Settings { model, train, ..Settings::default() };
    // Muon as nano-muon and speedrun take it: three Newton–Schulz steps of Polar Express's.
    let muon = serde_json::json!({"muon_lr": 0.03, "muon_ns_coefficients": "polar_express", "muon_ns_steps": 3});
    let mut presets = vec![
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
                (RoPE) and QK-norm: 300 steps, not 2000, at rates 3e-3 (AdamW) and 0.03 (Muon), 30 warmup \
                steps, three Newton–Schulz steps with Polar Express's coefficients, evaluating at the start and \
                the end. RoPE and QK-norm make each step count for more, and a seventh as many steps beat \
                nanoGPT's validation loss, in a quarter to three-fifths of its time in the page, depending \
                on the machine",
            settings: recipe(
                GPTConfig { rope: true, qk_norm: true, ..small(4, 4, 128, 64) },
                TrainConfig {
                    max_iters: 300,
                    learning_rate: 3e-3,
                    min_lr: 3e-4,
                    warmup_iters: 30,
                    eval_interval: Some(300),
                    eval_iters: 10,
                    ..TrainConfig::default()
                }
                .with_optimizer("muon", muon.clone()),
            ),
        },
        Preset {
            name: "speedrun",
            description: "The fastest way here to nanoGPT's validation loss: nano-muon's recipe on a narrower model \
                (64 channels, 4 layers, 2 heads of 32) at a higher AdamW rate (1e-2), 420 steps. At this budget a \
                smaller model with fewer, wider heads learns almost as much per step for a quarter of nanoGPT's arithmetic, \
                and reaches the loss in about a fifth of nanoGPT's time in the page",
            settings: recipe(
                GPTConfig { rope: true, qk_norm: true, ..small(4, 2, 64, 64) },
                TrainConfig {
                    max_iters: 420,
                    learning_rate: 1e-2,
                    min_lr: 1e-3,
                    warmup_iters: 30,
                    eval_interval: Some(420),
                    eval_iters: 10,
                    ..TrainConfig::default()
                }
                .with_optimizer("muon", muon.clone()),
            ),
        },
    ];
    presets.extend(TASKS.iter().map(|task| {
        let p = task.preset();
        let task = TaskConfig::new(*task, p.settings, p.train_fraction);
        Preset {
            name: p.name,
            description: p.description,
            settings: Settings { task: Some(task), ..recipe(p.model, p.train) },
        }
    }));
    // Then the models built by hand: training on would only move them from their answer.
    let built = BUILT.iter().map(|b| Preset { name: b.preset, description: b.description, settings: b.settings() });
    presets.extend(built);
    presets
}

/// The preset made for `task`.
pub fn for_task(task: &dyn Task) -> Preset {
    preset(task.preset().name).expect("every task's preset is listed")
}

/// The preset called `name`.
pub fn preset(name: &str) -> Option<Preset> {
    presets().into_iter().find(|p| p.name == name)
}
