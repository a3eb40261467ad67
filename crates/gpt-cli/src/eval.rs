//! `gpt eval`: a checkpoint's mean loss over every non-overlapping window of a text.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// The text to score (UTF-8, using only the checkpoint's characters).
    #[arg(long)]
    text: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let checkpoint = super::load_checkpoint(&a.checkpoint)?;
    let text = std::fs::read_to_string(&a.text).map_err(|e| format!("cannot read {}: {e}", a.text.display()))?;
    let tokens = checkpoint.tokenizer.encode(&text).map_err(|e| format!("{}: {e}", a.text.display()))?;
    let (loss, windows) = gpt::evaluate::windows_loss(&checkpoint.model, &tokens).map_err(|e| e.to_string())?;
    let block = checkpoint.model.config().block_size;
    if a.json {
        println!(
            "{}",
            serde_json::json!({"loss": loss, "windows": windows, "block_size": block, "tokens": tokens.len()})
        );
    } else {
        println!("loss {loss:.4} over {windows} windows of {block} tokens");
    }
    Ok(())
}
