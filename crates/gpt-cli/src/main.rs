//! `gpt`: the playground's model on the command line. Every failure is one line on stderr and
//! a non-zero exit.

mod bench;
mod eval;
mod sample;
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
    /// Train a model on a text file, evaluating as it goes.
    Train(train::Args),
    /// Generate text from a checkpoint, streaming it to stdout.
    Sample(sample::Args),
    /// The mean loss of a checkpoint over every non-overlapping window of a text.
    Eval(eval::Args),
    /// Measure training speed (tokens/s, ms/iter) on one thread.
    Bench(bench::Args),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Train(args) => train::run(args),
        Command::Sample(args) => sample::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Bench(args) => bench::run(args),
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

/// The checkpoint at `path`, or a one-line reason it cannot be used.
fn load_checkpoint(path: &std::path::Path) -> Result<gpt::checkpoint::Checkpoint, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    gpt::checkpoint::load(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}
