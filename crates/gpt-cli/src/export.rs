//! `gpt export`: a checkpoint as a nanoGPT checkout (`--nanogpt DIR`: `out-NAME/ckpt.pt`,
//! `data/NAME/{meta.pkl,train.bin,val.bin}`, a config and a README with the commands) or as a
//! Hugging Face Transformers GPT-2 folder (`--hf DIR`), or both.

use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("to").required(true).multiple(true).args(["nanogpt", "hf"])))]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// The text the run trained on: it becomes nanoGPT's train.bin and val.bin, split as the run split it.
    #[arg(long, required_if_eq("to", "nanogpt"))]
    text: Option<PathBuf>,
    /// A nanoGPT checkout's files, in this folder (made if missing).
    #[arg(long)]
    nanogpt: Option<PathBuf>,
    /// A Transformers GPT-2 folder: config.json, model.safetensors, tokenizer.json and the rest.
    #[arg(long)]
    hf: Option<PathBuf>,
    /// The name of nanoGPT's dataset and output folders.
    #[arg(long, default_value = "gpt_playground")]
    name: String,
}

pub fn run(a: Args) -> Result<(), String> {
    let mut run = crate::shared::open_run(&a.checkpoint)?;
    if let Some(dir) = &a.hf {
        write(dir, gpt::interop::hf::export(&run).map_err(|e| e.to_string())?)?;
    }
    let Some(dir) = &a.nanogpt else { return Ok(()) };
    let text_path = a.text.as_ref().ok_or("--nanogpt needs --text, the text the run trained on")?;
    let text = crate::shared::read_text(text_path)?;
    run.use_text(&text).map_err(|e| format!("{}: {e}", text_path.display()))?;
    write(dir, gpt::interop::nanogpt::export(&run, &a.name).map_err(|e| e.to_string())?)?;
    let kind = run.optimizer().kind();
    if kind.name != gpt::optim::OPTIMIZERS[0].name {
        println!(
            "this run trained with {0}; nanoGPT's train.py builds AdamW, so the matrices {0} trained resume with fresh \
             AdamW moments ({0}'s own state does not carry over), the rest with their own",
            kind.title
        );
    }
    Ok(())
}

fn write(dir: &Path, files: Vec<(String, Vec<u8>)>) -> Result<(), String> {
    for (path, bytes) in files {
        let path = dir.join(path);
        let made = path.parent().map_or(Ok(()), std::fs::create_dir_all);
        made.and_then(|()| std::fs::write(&path, bytes))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
