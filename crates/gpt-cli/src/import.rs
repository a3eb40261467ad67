//! `gpt import FILES... --out RUN.safetensors`: a run back from nanoGPT (`ckpt.pt` with its
//! `meta.pkl`), from a Transformers folder (its files, or the folder itself), or from an export's
//! zip, as a checkpoint `gpt sample`, `gpt eval` and `gpt train --resume` take.

use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The files: ckpt.pt and meta.pkl (plus train.bin and val.bin for the text), a Transformers
    /// folder or its config.json, model.safetensors and tokenizer.json, or an export's zip.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The checkpoint to write.
    #[arg(long)]
    out: PathBuf,
    /// Where to write the run's text, when the files hold it (nanoGPT's train.bin and val.bin).
    #[arg(long)]
    text_out: Option<PathBuf>,
}

/// `path`'s files: itself, or everything in a folder (an export's, laid out as it was written).
fn files_of(path: &Path, out: &mut Vec<(String, Vec<u8>)>) -> Result<(), String> {
    let read_err = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    if path.is_dir() {
        for entry in std::fs::read_dir(path).map_err(read_err)? {
            files_of(&entry.map_err(read_err)?.path(), out)?;
        }
        return Ok(());
    }
    out.push((path.to_string_lossy().replace('\\', "/"), std::fs::read(path).map_err(read_err)?));
    Ok(())
}

pub fn run(a: Args) -> Result<(), String> {
    let mut files = Vec::new();
    for path in &a.files {
        files_of(path, &mut files)?;
    }
    let borrowed: Vec<(String, &[u8])> = files.iter().map(|(n, b)| (n.clone(), b.as_slice())).collect();
    let imported = gpt::interop::import(&borrowed).map_err(|e| e.to_string())?;
    let run = gpt::Run::open(&imported.checkpoint).map_err(|e| e.to_string())?;
    std::fs::write(&a.out, &imported.checkpoint).map_err(|e| format!("cannot write {}: {e}", a.out.display()))?;
    let c = run.model().config();
    println!(
        "wrote {}: a {}-layer model from {} at step {}",
        a.out.display(),
        c.n_layer,
        imported.from,
        run.step_count()
    );
    match (imported.text, &a.text_out) {
        (Some(text), Some(path)) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}: the run's text", path.display());
        }
        (None, Some(_)) => return Err("--text-out: these files do not hold the run's text".into()),
        _ => {}
    }
    Ok(())
}
