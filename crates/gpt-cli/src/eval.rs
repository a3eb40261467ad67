//! `gpt eval`: a checkpoint's mean loss over every non-overlapping window of a text; for a task's
//! checkpoint, its loss and accuracy on training and held-out problems.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// The text to score (UTF-8, using only the checkpoint's characters); not for a task's model.
    #[arg(long)]
    text: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Also write the first window's tokens (a task's: the held-out problem the attention view
    /// shows), their logits and every head's attention here (safetensors: `idx`, `logits`,
    /// `attention` as layer, head, query, key), to compare against another implementation such
    /// as PyTorch.
    #[arg(long)]
    logits_out: Option<PathBuf>,
}

/// Writes `idx`, its logits and its attention to `path` (see [`Args::logits_out`]).
fn dump(run: &gpt::Run, idx: &[usize], path: &std::path::Path) -> Result<(), String> {
    let t = idx.len();
    let logits = run.model().logits(idx, 1, t).map_err(|e| e.to_string())?;
    let attention = run.model().attention(idx).map_err(|e| e.to_string())?;
    let c = run.model().config();
    let idx_bytes: Vec<u8> = idx.iter().flat_map(|&t| (t as i64).to_le_bytes()).collect();
    let f32_bytes = |xs: &mut dyn Iterator<Item = &f32>| -> Vec<u8> { xs.flat_map(|x| x.to_le_bytes()).collect() };
    let (logit_bytes, attention_bytes) = (f32_bytes(&mut logits.iter()), f32_bytes(&mut attention.iter()));
    let view = |dtype, shape: &[usize], data| safetensors::tensor::TensorView::new(dtype, shape.to_vec(), data);
    let tensors = [
        ("idx", view(safetensors::Dtype::I64, &[1, t], &idx_bytes)),
        ("logits", view(safetensors::Dtype::F32, logits.shape(), &logit_bytes)),
        ("attention", view(safetensors::Dtype::F32, &[c.n_layer, c.n_head, t, t], &attention_bytes)),
    ];
    let tensors = tensors.into_iter().map(|(n, v)| v.map(|v| (n, v))).collect::<Result<Vec<_>, _>>();
    let bytes = tensors.and_then(|t| safetensors::serialize(t, None)).map_err(|e| e.to_string())?;
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A task's model on its own problems: an evaluation as training makes them.
fn task(mut run: gpt::Run, json: bool, logits_out: Option<&std::path::Path>) -> Result<(), String> {
    if let Some(path) = logits_out {
        let example = run.task_details().expect("a task's run").held_out_example;
        let ids = run.tokenizer().encode(&example).map_err(|e| e.to_string())?;
        let block = run.model().config().block_size;
        dump(&run, &ids[ids.len().saturating_sub(block)..].iter().map(|&t| t as usize).collect::<Vec<_>>(), path)?;
    }
    let e = run.evaluate().map_err(|e| e.to_string())?;
    let (train, val) = (e.train_accuracy.unwrap_or(0.0), e.val_accuracy.unwrap_or(0.0));
    if json {
        let line = serde_json::json!({"train_loss": e.train_loss, "val_loss": e.val_loss, "train_accuracy": train, "val_accuracy": val});
        println!("{line}");
    } else {
        let problems = run.train_config().eval_iters * run.train_config().batch_size;
        println!(
            "loss {:.4} train, {:.4} held out; exact match {:.1}% of {problems} training problems, {:.1}% of {problems} held out",
            e.train_loss,
            e.val_loss,
            100.0 * train,
            100.0 * val
        );
    }
    Ok(())
}

pub fn run(a: Args) -> Result<(), String> {
    let run = crate::shared::open_run(&a.checkpoint)?;
    let path = match (&a.text, run.task()) {
        (None, Some(_)) => return task(run, a.json, a.logits_out.as_deref()),
        (Some(_), Some(_)) => return Err("--text: this model trains on a task, which makes its own problems".into()),
        (Some(path), None) => path,
        (None, None) => return Err("--text: give the text to score".into()),
    };
    let text = crate::shared::read_text(path)?;
    let tokens = run.tokenizer().encode(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let (loss, windows) = run.text_loss(&tokens).map_err(|e| e.to_string())?;
    let block = run.model().config().block_size;
    if let Some(path) = &a.logits_out {
        dump(&run, &tokens[..block].iter().map(|&t| t as usize).collect::<Vec<_>>(), path)?;
    }
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
