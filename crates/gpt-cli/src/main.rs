//! `gpt`: the playground's model on the command line. Every failure is one line on stderr and
//! a non-zero exit.

mod bench;
mod train;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "gpt", version, about = "Train and benchmark a small GPT on the CPU")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train a model on a text file, evaluating as it goes.
    Train(train::Args),
    /// Measure training speed (tokens/s, ms/iter) on one thread.
    Bench(bench::Args),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Train(args) => train::run(args),
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
