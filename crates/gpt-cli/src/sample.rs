//! `gpt sample`: text from a checkpoint, streamed to stdout token by token.

use gpt::{SampleConfig, Sampler};
use std::io::Write;
use std::path::PathBuf;

/// Each setting left out is the one the checkpoint's last generation used (the page saves it),
/// or else the default shown.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// Text to continue; empty starts from the first token (a newline for most texts) [default: ""].
    #[arg(long)]
    prompt: Option<String>,
    /// [default: 500]
    #[arg(long)]
    max_new_tokens: Option<usize>,
    /// 0 always takes the most likely token [default: 0.8].
    #[arg(long)]
    temperature: Option<f32>,
    /// Keep only the k most likely tokens; 0 keeps all [default: 0].
    #[arg(long)]
    top_k: Option<usize>,
    /// [default: 1337]
    #[arg(long)]
    seed: Option<u64>,
    /// Instead of sampling, list the K most likely next tokens after the prompt (at the
    /// temperature, or 1 when it is 0) with their probabilities.
    #[arg(long, value_name = "K")]
    next_tokens: Option<usize>,
}

pub fn run(a: Args) -> Result<(), String> {
    let checkpoint = super::load_checkpoint(&a.checkpoint)?;
    let saved = checkpoint.sampling.clone().unwrap_or(SampleConfig { max_new_tokens: 500, ..Default::default() });
    let config = SampleConfig {
        prompt: a.prompt.unwrap_or(saved.prompt),
        temperature: a.temperature.unwrap_or(saved.temperature),
        top_k: a.top_k.unwrap_or(saved.top_k),
        seed: a.seed.unwrap_or(saved.seed),
        max_new_tokens: a.max_new_tokens.unwrap_or(saved.max_new_tokens),
    };
    let prompt = checkpoint.tokenizer.encode(&config.prompt).map_err(|e| format!("--prompt: {e}"))?;
    let mut out = std::io::stdout().lock();
    if let Some(k) = a.next_tokens {
        let temperature = if config.temperature > 0.0 { config.temperature } else { 1.0 };
        let probs = gpt::next_token_probs(&checkpoint.model, &prompt, temperature).map_err(|e| e.to_string())?;
        for (id, p) in gpt::most_likely(&probs, k) {
            // Debug-quoted, so a newline or space token stays visible.
            writeln!(out, "{p:.4}\t{:?}", checkpoint.tokenizer.token_text(id)).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    let write = |out: &mut std::io::StdoutLock, s: &str| out.write_all(s.as_bytes()).and_then(|_| out.flush());
    write(&mut out, &config.prompt).map_err(|e| e.to_string())?;
    let mut sampler = Sampler::new(&prompt, config).map_err(|e| e.to_string())?;
    let mut pending = Vec::new();
    while let Some(id) = sampler.next_token(&checkpoint.model).map_err(|e| e.to_string())? {
        write(&mut out, &checkpoint.tokenizer.decode_stream(&[id], &mut pending)).map_err(|e| e.to_string())?;
    }
    writeln!(out).map_err(|e| e.to_string())
}
