//! `gpt`: the playground's model on the command line. Every failure is one line on stderr and
//! a non-zero exit.

mod bench;
mod eval;
mod export;
mod import;
mod sample;
mod setting_flags;
mod train;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "gpt", version, about = "Train, sample, evaluate and benchmark a small GPT on the CPU")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train a model on a text file or a task, evaluating as it goes.
    Train(Box<train::Args>),
    /// Generate text from a checkpoint, streaming it to stdout.
    Sample(sample::Args),
    /// The mean loss of a checkpoint over every non-overlapping window of a text.
    Eval(eval::Args),
    /// Measure training speed (tokens/s, ms/iter).
    Bench(bench::Args),
    /// Write a checkpoint for another tool: a nanoGPT checkout (with its text) or a Transformers folder.
    Export(export::Args),
    /// A run back from nanoGPT, from Transformers, or from an export's zip, as a checkpoint.
    Import(import::Args),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Train(args) => train::run(*args),
        Command::Sample(args) => sample::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Export(args) => export::run(args),
        Command::Import(args) => import::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The preset called `name`, or an error listing the ones there are.
fn preset(name: &str) -> Result<gpt::presets::Preset, String> {
    gpt::presets::preset(name).ok_or_else(|| {
        let names: Vec<_> = gpt::presets::presets().iter().map(|p| p.name).collect();
        format!("unknown preset {name:?}; choose one of {}", names.join(", "))
    })
}

/// A core error as one line; an invalid setting names the flag that sets it.
fn explain(e: gpt::Error) -> String {
    let gpt::Error::Invalid(problem) = &e else { return e.to_string() };
    let flag = match problem.field.rsplit('.').next().unwrap_or_default() {
        "max_iters" => "--iters",
        "learning_rate" => "--lr",
        "warmup_iters" => "--warmup",
        "bpe_vocab_size" => "--vocab-size",
        name @ ("n_layer" | "n_head" | "n_embd" | "block_size" | "dropout" | "batch_size" | "min_lr" | "seed"
        | "eval_interval" | "eval_iters" | "weight_decay" | "rope" | "qk_norm" | "optimizer") => {
            return format!("{}: {e}", setting_flags::flag(name))
        }
        name if setting_flags::describes(name) => return format!("{}: {e}", setting_flags::flag(name)),
        // Settings with no flag come from the preset or the checkpoint.
        _ => return e.to_string(),
    };
    format!("{flag}: {e}")
}

/// The run saved at `path`, or a one-line reason it cannot be opened.
fn open_run(path: &std::path::Path) -> Result<gpt::Run, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    gpt::Run::open(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// A file's text, or a one-line reason it cannot be read.
fn read_text(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// What this machine can train: a model whose training step fits in its memory.
fn budget() -> gpt::Budget {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| {
        let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    });
    match total_kib {
        Some(kib) => gpt::Budget { max_training_bytes: kib * 1024, ..gpt::Budget::UNLIMITED },
        None => gpt::Budget::UNLIMITED,
    }
}

/// Every core this process may use: the default for `--threads`.
fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Milliseconds since the first call, for [`gpt::Run::train`]'s timing.
fn now_ms() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1e3
}
