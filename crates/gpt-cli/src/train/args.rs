//! `gpt train`'s flags: a preset's settings to override, a text or a task, and where to save.

use crate::setting_flags::{Owner, SettingFlags};
use gpt::TokenizerKind;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The training text (UTF-8); the last 10% is held out for validation. Not with --task.
    #[arg(long, required_unless_present_any = ["task", "resume"], conflicts_with = "task")]
    pub(super) data: Option<PathBuf>,
    /// Train on a task's generated problems instead of a text. Its preset is the default.
    #[arg(long, value_parser = task_names())]
    pub(super) task: Option<String>,
    /// A task's own settings (each task's flags below).
    #[command(flatten)]
    pub(super) settings: SettingFlags,
    /// `char` (one token per character) or `bpe` (byte pairs learned from --data).
    #[arg(long, default_value = "char")]
    pub(super) tokenizer: TokenizerKind,
    /// The byte-pair vocabulary size (256 to 16384), with --tokenizer bpe.
    #[arg(long, default_value_t = gpt::DEFAULT_BPE_VOCAB)]
    pub(super) vocab_size: usize,
    /// Starting point: a text's preset, or a task's (which sets its task); a name it does not know
    /// lists them all [default: nano-cpu, or the task's own].
    #[arg(long)]
    pub(super) preset: Option<String>,
    #[arg(long)]
    pub(super) n_layer: Option<usize>,
    #[arg(long)]
    pub(super) n_head: Option<usize>,
    #[arg(long)]
    pub(super) n_embd: Option<usize>,
    #[arg(long)]
    pub(super) block_size: Option<usize>,
    #[arg(long)]
    pub(super) batch_size: Option<usize>,
    #[arg(long)]
    pub(super) dropout: Option<f32>,
    /// Rotary position embeddings (RoPE) instead of a learned position table.
    #[arg(long)]
    pub(super) rope: bool,
    /// QK-norm: each head's queries and keys divided by their root mean square before attention.
    #[arg(long)]
    pub(super) qk_norm: bool,
    /// layernorm or rmsnorm.
    #[arg(long, value_parser = by_name::<gpt::ops::NormKind>)]
    pub(super) norm: Option<gpt::ops::NormKind>,
    /// gelu or relu.
    #[arg(long, value_parser = by_name::<gpt::ops::Activation>)]
    pub(super) activation: Option<gpt::ops::Activation>,
    /// Biases in the linear layers and LayerNorms (true or false).
    #[arg(long)]
    pub(super) bias: Option<bool>,
    /// Share the token embedding with the output layer (true or false).
    #[arg(long)]
    pub(super) tie_weights: Option<bool>,
    #[arg(long)]
    pub(super) lr: Option<f32>,
    #[arg(long)]
    pub(super) min_lr: Option<f32>,
    /// Steps over which the learning rate rises to its peak [default: the preset's, at most --iters]
    #[arg(long)]
    pub(super) warmup: Option<usize>,
    /// Training steps (also where the learning rate finishes decaying).
    #[arg(long)]
    pub(super) iters: Option<usize>,
    #[arg(long)]
    pub(super) seed: Option<u64>,
    #[arg(long)]
    pub(super) weight_decay: Option<f32>,
    /// What trains the weight matrices inside the blocks (others keep AdamW for the rest); its own
    /// settings are among the flags below.
    #[arg(long, value_parser = optimizer_names())]
    pub(super) optimizer: Option<String>,
    /// Evaluate every this many steps, and at the end [default: a twentieth of the run].
    #[arg(long)]
    pub(super) eval_interval: Option<usize>,
    /// Batches per split in each evaluation [default: the preset's].
    #[arg(long)]
    pub(super) eval_iters: Option<usize>,
    /// One JSON object per evaluation and one for the summary, instead of text.
    #[arg(long)]
    pub(super) json: bool,
    /// Save the whole training state here at every evaluation and at the end.
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Also keep the training state of every evaluation in this folder, as step-NNNNNN.safetensors:
    /// the checkpoints a measure over training reads (`gpt inspect … llc` on each).
    #[arg(long)]
    pub(super) keep_each: Option<PathBuf>,
    /// Threads that compute each step (at most the step's shards: 8 for batches of 8 or more);
    /// the losses are the same bit for bit whatever the number [default: every core].
    #[arg(long)]
    pub(super) threads: Option<usize>,
    /// Continue from this checkpoint (its model, settings, step and random state) on --data, or
    /// on its task.
    #[arg(long, conflicts_with = "task")]
    pub(super) resume: Option<PathBuf>,
}

/// The tasks' names, for `--task`.
fn task_names() -> clap::builder::PossibleValuesParser {
    gpt::TASKS.iter().map(|t| t.name()).collect::<Vec<_>>().into()
}

/// The optimisers' names, for `--optimizer`.
fn optimizer_names() -> clap::builder::PossibleValuesParser {
    gpt::optim::OPTIMIZERS.iter().map(|k| k.name).collect::<Vec<_>>().into()
}

/// A setting's value by the name a checkpoint's config gives it ("rmsnorm", "relu").
fn by_name<T: serde::de::DeserializeOwned>(name: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(name.into())).map_err(|e| e.to_string())
}

impl Args {
    /// Flags that would change the model or recipe, which a resumed run keeps as it was.
    pub(super) fn overrides(&self) -> Vec<String> {
        let set = [
            ("--n-layer", self.n_layer.is_some()),
            ("--n-head", self.n_head.is_some()),
            ("--n-embd", self.n_embd.is_some()),
            ("--block-size", self.block_size.is_some()),
            ("--batch-size", self.batch_size.is_some()),
            ("--dropout", self.dropout.is_some()),
            ("--rope", self.rope),
            ("--qk-norm", self.qk_norm),
            ("--norm", self.norm.is_some()),
            ("--activation", self.activation.is_some()),
            ("--bias", self.bias.is_some()),
            ("--tie-weights", self.tie_weights.is_some()),
            ("--lr", self.lr.is_some()),
            ("--min-lr", self.min_lr.is_some()),
            ("--warmup", self.warmup.is_some()),
            ("--seed", self.seed.is_some()),
            ("--weight-decay", self.weight_decay.is_some()),
            ("--optimizer", self.optimizer.is_some()),
            ("--preset", self.preset.is_some()),
        ];
        let fixed = set.iter().filter(|(_, on)| *on).map(|(name, _)| name.to_string());
        fixed.chain(self.settings.given(Owner::Task)).chain(self.settings.given(Owner::Optimizer)).collect()
    }
}
