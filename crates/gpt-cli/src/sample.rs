//! `gpt sample`: text from a checkpoint, streamed to stdout token by token.

use gpt::{SampleConfig, Sampler};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// Text to continue; empty starts from the first token (a newline for most texts).
    #[arg(long, default_value = "")]
    prompt: String,
    #[arg(long, default_value_t = 500)]
    max_new_tokens: usize,
    /// 0 always takes the most likely token.
    #[arg(long, default_value_t = 0.8)]
    temperature: f32,
    /// Keep only the k most likely tokens; 0 keeps all.
    #[arg(long, default_value_t = 0)]
    top_k: usize,
    #[arg(long, default_value_t = 1337)]
    seed: u64,
}

pub fn run(a: Args) -> Result<(), String> {
    let checkpoint = super::load_checkpoint(&a.checkpoint)?;
    let prompt = checkpoint.tokenizer.encode(&a.prompt).map_err(|e| format!("--prompt: {e}"))?;
    let config =
        SampleConfig { temperature: a.temperature, top_k: a.top_k, seed: a.seed, max_new_tokens: a.max_new_tokens };
    let mut sampler = Sampler::new(&prompt, config).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    let write = |out: &mut std::io::StdoutLock, s: &str| out.write_all(s.as_bytes()).and_then(|_| out.flush());
    write(&mut out, &a.prompt).map_err(|e| e.to_string())?;
    let mut pending = Vec::new();
    while let Some(id) = sampler.next_token(&checkpoint.model).map_err(|e| e.to_string())? {
        write(&mut out, &checkpoint.tokenizer.decode_stream(&[id], &mut pending)).map_err(|e| e.to_string())?;
    }
    writeln!(out).map_err(|e| e.to_string())
}
