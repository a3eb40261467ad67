//! `gpt export --nanogpt DIR`: a checkpoint and its text laid out as a nanoGPT checkout expects
//! (`out-NAME/ckpt.pt`, `data/NAME/{meta.pkl,train.bin,val.bin}`, and a README with the commands).

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// The text the run trained on: it becomes train.bin and val.bin, split as the run split it.
    #[arg(long)]
    text: PathBuf,
    /// The folder to write (made if missing).
    #[arg(long)]
    nanogpt: PathBuf,
    /// The name of nanoGPT's dataset and output folders.
    #[arg(long, default_value = "gpt_playground")]
    name: String,
}

pub fn run(a: Args) -> Result<(), String> {
    let mut run = super::open_run(&a.checkpoint)?;
    let text = super::read_text(&a.text)?;
    run.use_text(&text).map_err(|e| format!("{}: {e}", a.text.display()))?;
    let files = gpt::export::nanogpt::export(&run, &a.name).map_err(|e| e.to_string())?;
    for (path, bytes) in files {
        let path = a.nanogpt.join(path);
        let made = path.parent().map_or(Ok(()), std::fs::create_dir_all);
        made.and_then(|()| std::fs::write(&path, bytes))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    if run.train_config().optimizer == gpt::OptimizerKind::Muon {
        println!(
            "this run trained its block matrices with Muon; nanoGPT's train.py builds AdamW, so those matrices resume \
             with fresh AdamW moments (Muon's momentum does not carry over), the rest with their own"
        );
    }
    Ok(())
}
