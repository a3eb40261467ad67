//! `gpt`: the playground's model on the command line. Every failure is one line on stderr and
//! a non-zero exit.

mod architecture_flags;
mod bench;
mod build;
mod circuit;
mod draw_flags;
mod eval;
mod export;
mod feature_views;
mod features;
mod graph;
mod import;
mod inspect;
mod llc;
mod llc_curve;
mod matrix_file;
mod sample;
mod setting_flags;
mod shared;
mod superposition;
mod superposition_llc;
mod synthetic_sae;
mod train;
mod transcoders;
mod truth_score;
mod walk;

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
    /// Test what a checkpoint's heads do: ablation, patching, logit attribution, composition, Fourier.
    Inspect(inspect::Args),
    /// Train a sparse autoencoder on a checkpoint's model and measure it; write it for SAELens.
    Features(Box<features::Args>),
    /// Follow one token through a checkpoint's model: every stage of the forward pass and of one training step.
    Walk(walk::Args),
    /// A model built by hand, whose circuit is known, written as a checkpoint.
    Build(build::Args),
    /// Elhage et al.'s toy model of superposition: n sparse features in m dimensions, and what it stores; or a phase diagram.
    Superposition(superposition::Args),
}

fn main() -> ExitCode {
    quiet_when_the_reader_leaves();
    let result = match Cli::parse().command {
        Command::Train(args) => train::run(*args),
        Command::Sample(args) => sample::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Export(args) => export::run(args),
        Command::Import(args) => import::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Walk(args) => walk::run(args),
        Command::Features(args) => features::run(*args),
        Command::Superposition(args) => superposition::run(args),
        Command::Build(args) => build::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `gpt … | head` ends quietly when `head` has read enough, as Unix tools do, rather than panicking
/// on the next line it prints: Rust ignores SIGPIPE unless a program asks for it back.
fn quiet_when_the_reader_leaves() {
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread starts; restores the signal's default action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
