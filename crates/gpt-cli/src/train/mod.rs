//! `gpt train`: a preset, overridden field by field, trained on a text file or a task; or a
//! checkpoint, resumed exactly where it stopped.

use crate::setting_flags::{Owner, SettingFlags};
use gpt::{Run, TokenizerKind};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

mod build;

#[derive(clap::Args)]
pub struct Args {
    /// The training text (UTF-8); the last 10% is held out for validation. Not with --task.
    #[arg(long, required_unless_present_any = ["task", "resume"], conflicts_with = "task")]
    data: Option<PathBuf>,
    /// Train on a task's generated problems instead of a text. Its preset is the default.
    #[arg(long, value_parser = task_names())]
    task: Option<String>,
    /// A task's own settings (each task's flags below).
    #[command(flatten)]
    settings: SettingFlags,
    /// `char` (one token per character) or `bpe` (byte pairs learned from --data).
    #[arg(long, default_value = "char")]
    tokenizer: TokenizerKind,
    /// The byte-pair vocabulary size (256 to 16384), with --tokenizer bpe.
    #[arg(long, default_value_t = gpt::DEFAULT_BPE_VOCAB)]
    vocab_size: usize,
    /// Starting point: tiny, names, nano-cpu or nano-muon for a text; induction, reverse, sort, addition
    /// or grokking for a task (each sets its task) [default: nano-cpu, or the task's own].
    #[arg(long)]
    preset: Option<String>,
    #[arg(long)]
    n_layer: Option<usize>,
    #[arg(long)]
    n_head: Option<usize>,
    #[arg(long)]
    n_embd: Option<usize>,
    #[arg(long)]
    block_size: Option<usize>,
    #[arg(long)]
    batch_size: Option<usize>,
    #[arg(long)]
    dropout: Option<f32>,
    /// Rotary position embeddings (RoPE) instead of a learned position table.
    #[arg(long)]
    rope: bool,
    /// QK-norm: each head's queries and keys divided by their root mean square before attention.
    #[arg(long)]
    qk_norm: bool,
    /// layernorm or rmsnorm.
    #[arg(long, value_parser = by_name::<gpt::ops::NormKind>)]
    norm: Option<gpt::ops::NormKind>,
    /// gelu or relu.
    #[arg(long, value_parser = by_name::<gpt::ops::Activation>)]
    activation: Option<gpt::ops::Activation>,
    /// Biases in the linear layers and LayerNorms (true or false).
    #[arg(long)]
    bias: Option<bool>,
    /// Share the token embedding with the output layer (true or false).
    #[arg(long)]
    tie_weights: Option<bool>,
    #[arg(long)]
    lr: Option<f32>,
    #[arg(long)]
    min_lr: Option<f32>,
    #[arg(long)]
    warmup: Option<usize>,
    /// Training steps (also where the learning rate finishes decaying).
    #[arg(long)]
    iters: Option<usize>,
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long)]
    weight_decay: Option<f32>,
    /// What trains the weight matrices inside the blocks (others keep AdamW for the rest); its own
    /// settings are among the flags below.
    #[arg(long, value_parser = optimizer_names())]
    optimizer: Option<String>,
    /// Evaluate every this many steps, and at the end [default: a twentieth of the run].
    #[arg(long)]
    eval_interval: Option<usize>,
    /// Batches per split in each evaluation [default: the preset's].
    #[arg(long)]
    eval_iters: Option<usize>,
    /// One JSON object per evaluation and one for the summary, instead of text.
    #[arg(long)]
    json: bool,
    /// Save the whole training state here at every evaluation and at the end.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Threads that compute each step (at most the step's shards: 8 for batches of 8 or more);
    /// the losses are the same bit for bit whatever the number [default: every core].
    #[arg(long)]
    threads: Option<usize>,
    /// Continue from this checkpoint (its model, settings, step and random state) on --data, or
    /// on its task.
    #[arg(long, conflicts_with = "task")]
    resume: Option<PathBuf>,
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
    fn overrides(&self) -> Vec<String> {
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

fn save(path: &Path, run: &Run) -> Result<(), String> {
    let bytes = run.save().map_err(|e| e.to_string())?;
    // Write beside, then rename: an interrupted save never destroys the previous checkpoint.
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

pub fn run(a: Args) -> Result<(), String> {
    let text = a.data.as_deref().map(super::read_text).transpose()?;
    let mut run = build::open_run(&a, text.as_deref())?;
    run.set_threads(a.threads.unwrap_or_else(super::all_cores));
    let max_iters = run.train_config().max_iters;
    if !a.json {
        println!(
            "{} parameters, vocabulary {}, {} tokens per step, {} threads",
            run.model().params().count(),
            run.vocab_size(),
            run.tokens_per_step(),
            run.workers()
        );
    }
    let tty = std::io::stderr().is_terminal() && !a.json;
    let start = Instant::now();
    let report = |run: &mut Run| -> Result<serde_json::Value, String> {
        let e = run.evaluate().map_err(|e| e.to_string())?;
        let tps = run.session_tokens_per_s();
        let wall = start.elapsed().as_secs_f64();
        let mut line = serde_json::json!({"step": e.step, "train_loss": e.train_loss, "val_loss": e.val_loss, "tokens_per_s": tps.round(), "wall_s": wall});
        if let (Some(train), Some(val)) = (e.train_accuracy, e.val_accuracy) {
            (line["train_accuracy"], line["val_accuracy"]) = (train.into(), val.into());
        }
        if a.json {
            println!("{line}");
        } else {
            if tty {
                eprint!("\r\x1b[K");
            }
            let accuracy = match (e.train_accuracy, e.val_accuracy) {
                (Some(train), Some(val)) => {
                    format!(", accuracy {:.1}% train, {:.1}% held out", 100.0 * train, 100.0 * val)
                }
                _ => String::new(),
            };
            println!(
                "step {:>5}: train loss {:.4}, val loss {:.4}{accuracy}, {:.0} tokens/s, {:.1} s",
                e.step, e.train_loss, e.val_loss, tps, wall
            );
        }
        if let Some(out) = &a.out {
            save(out, run)?;
        }
        Ok(line)
    };
    let mut last = report(&mut run)?;
    while run.step_count() < max_iters {
        let r = run.train(1, &super::now_ms).map_err(|e| e.to_string())?;
        if let Some(why) = r.stopped {
            return Err(why);
        }
        if tty {
            let done = 30 * r.step / max_iters;
            eprint!(
                "\r[{}{}] {}/{} loss {:.4} lr {:.2e} {:.0} tok/s ETA {:.0}s\x1b[K",
                "#".repeat(done),
                "-".repeat(30 - done),
                r.step,
                max_iters,
                r.losses[0],
                r.lr,
                run.session_tokens_per_s(),
                r.eta_s
            );
            let _ = std::io::stderr().flush();
        }
        if run.eval_due() {
            last = report(&mut run)?;
        }
    }
    if a.json {
        last["summary"] = true.into();
        println!("{last}");
    } else if let Some(out) = &a.out {
        println!("saved {}", out.display());
    }
    Ok(())
}
