//! The settings' fields, as checkpoints and settings write them, for the fuzz tests that edit them.

/// The fields of a model's config, as checkpoints and settings write them.
pub const MODEL_FIELDS: [&str; 11] = [
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
    "rope",
];

/// The fields of a task's settings.
pub const TASK_FIELDS: [&str; 6] = ["name", "length", "symbols", "digits", "p", "train_fraction"];
