//! `gpt train`: a preset, overridden field by field, trained on a text file; or a checkpoint,
//! resumed exactly where it stopped.

use gpt::{Tokenizer, TokenizerKind, Trainer};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The training text (UTF-8); the last 10% is held out for validation.
    #[arg(long)]
    data: PathBuf,
    /// `char` (one token per character) or `bpe` (byte pairs learned from --data).
    #[arg(long, default_value = "char")]
    tokenizer: TokenizerKind,
    /// The byte-pair vocabulary size (256 to 16384), with --tokenizer bpe.
    #[arg(long, default_value_t = 1024)]
    vocab_size: usize,
    /// Starting point: tiny, names or nano-cpu.
    #[arg(long, default_value = "nano-cpu")]
    preset: String,
    #[arg(long)]
    n_layer: Option<usize>,
    #[arg(long)]
    n_head: Option<usize>,
    #[arg(long)]
    n_embd: Option<usize>,
    #[arg(long)]
    block_size: Option<usize>,
    #[arg(long)]
    batch_size: Option<usize>,
    #[arg(long)]
    dropout: Option<f32>,
    #[arg(long)]
    lr: Option<f32>,
    #[arg(long)]
    min_lr: Option<f32>,
    #[arg(long)]
    warmup: Option<usize>,
    /// Training steps (also where the learning rate finishes decaying).
    #[arg(long)]
    iters: Option<usize>,
    #[arg(long)]
    seed: Option<u64>,
    /// Evaluate every this many steps, and at the end.
    #[arg(long, default_value_t = 250)]
    eval_interval: usize,
    /// Batches per split in each evaluation.
    #[arg(long, default_value_t = 20)]
    eval_iters: usize,
    /// One JSON object per evaluation and one for the summary, instead of text.
    #[arg(long)]
    json: bool,
    /// Save the whole training state here at every evaluation and at the end.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue from this checkpoint (its model, settings, step and random state) on --data.
    #[arg(long)]
    resume: Option<PathBuf>,
}

impl Args {
    /// Flags that would change the model or recipe, which a resumed run keeps as it was.
    fn overrides(&self) -> Vec<&'static str> {
        let set = [
            ("--n-layer", self.n_layer.is_some()),
            ("--n-head", self.n_head.is_some()),
            ("--n-embd", self.n_embd.is_some()),
            ("--block-size", self.block_size.is_some()),
            ("--batch-size", self.batch_size.is_some()),
            ("--dropout", self.dropout.is_some()),
            ("--lr", self.lr.is_some()),
            ("--min-lr", self.min_lr.is_some()),
            ("--warmup", self.warmup.is_some()),
            ("--seed", self.seed.is_some()),
        ];
        set.iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect()
    }
}

/// A new trainer from the preset and flags, or the one a checkpoint holds.
fn trainer(a: &Args, text: &str) -> Result<(Trainer, Tokenizer), String> {
    if let Some(path) = &a.resume {
        if let Some(flag) = a.overrides().first() {
            return Err(format!("{flag} cannot change a resumed run; it keeps the checkpoint's settings"));
        }
        let checkpoint = super::load_checkpoint(path)?;
        let tokenizer = checkpoint.tokenizer.clone();
        let tokens = tokenizer.encode(text).map_err(|e| format!("{}: {e}", a.data.display()))?;
        let mut trainer = Trainer::resume(checkpoint, tokens).map_err(|e| e.to_string())?;
        if let Some(iters) = a.iters {
            trainer.set_max_iters(iters).map_err(|e| e.to_string())?;
        }
        return Ok((trainer, tokenizer));
    }
    let preset = super::preset(&a.preset)?;
    let fitting = Instant::now();
    let tokenizer = Tokenizer::fit(a.tokenizer, text, a.vocab_size).map_err(|e| e.to_string())?;
    if a.tokenizer == TokenizerKind::Bpe && !a.json {
        println!(
            "byte-pair tokenizer: {} tokens learned in {:.2} s",
            tokenizer.vocab_size(),
            fitting.elapsed().as_secs_f64()
        );
    }
    let (mut model, mut train) = (preset.model, preset.train);
    model.vocab_size = tokenizer.vocab_size();
    macro_rules! set {
        ($($field:ident . $name:ident = $arg:ident),*) => { $(if let Some(v) = a.$arg { $field.$name = v; })* };
    }
    set!(
        model.n_layer = n_layer,
        model.n_head = n_head,
        model.n_embd = n_embd,
        model.block_size = block_size,
        model.dropout = dropout,
        train.batch_size = batch_size,
        train.learning_rate = lr,
        train.min_lr = min_lr,
        train.warmup_iters = warmup,
        train.seed = seed
    );
    if let Some(iters) = a.iters {
        (train.max_iters, train.lr_decay_iters) = (iters, iters);
    }
    let tokens = tokenizer.encode(text).map_err(|e| e.to_string())?;
    let trainer = Trainer::new(model, train, tokens).map_err(|e| e.to_string())?;
    Ok((trainer, tokenizer))
}

fn save(path: &Path, trainer: &Trainer, tokenizer: &Tokenizer) -> Result<(), String> {
    let bytes = gpt::checkpoint::save(trainer, tokenizer).map_err(|e| e.to_string())?;
    // Write beside, then rename: an interrupted save never destroys the previous checkpoint.
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

pub fn run(a: Args) -> Result<(), String> {
    let text = std::fs::read_to_string(&a.data).map_err(|e| format!("cannot read {}: {e}", a.data.display()))?;
    let (mut trainer, tokenizer) = trainer(&a, &text)?;
    let max_iters = trainer.config().max_iters;
    if !a.json {
        println!(
            "{} parameters, vocabulary {}, {} tokens per step",
            trainer.model().params().count(),
            tokenizer.vocab_size(),
            trainer.tokens_per_step()
        );
    }
    let tty = std::io::stderr().is_terminal() && !a.json;
    let start = Instant::now();
    let mut train_secs = 0.0;
    let first_step = trainer.step_count();
    let report = |trainer: &mut Trainer, train_secs: f64| -> Result<serde_json::Value, String> {
        let e = trainer.evaluate(a.eval_iters).map_err(|e| e.to_string())?;
        let tps = ((e.step - first_step) * trainer.tokens_per_step()) as f64 / train_secs.max(1e-9);
        let wall = start.elapsed().as_secs_f64();
        let line = serde_json::json!({"step": e.step, "train_loss": e.train_loss, "val_loss": e.val_loss, "tokens_per_s": tps.round(), "wall_s": wall});
        if a.json {
            println!("{line}");
        } else {
            if tty {
                eprint!("\r\x1b[K");
            }
            println!(
                "step {:>5}: train loss {:.4}, val loss {:.4}, {:.0} tokens/s, {:.1} s",
                e.step, e.train_loss, e.val_loss, tps, wall
            );
        }
        if let Some(out) = &a.out {
            save(out, trainer, &tokenizer)?;
        }
        Ok(line)
    };
    let mut last = report(&mut trainer, 1.0)?;
    while trainer.step_count() < max_iters {
        let t0 = Instant::now();
        let s = trainer.step().map_err(|e| e.to_string())?;
        train_secs += t0.elapsed().as_secs_f64();
        if tty {
            let rate = (s.step - first_step) as f64 / train_secs;
            let eta = (max_iters - s.step) as f64 / rate;
            let done = 30 * s.step / max_iters;
            eprint!(
                "\r[{}{}] {}/{} loss {:.4} lr {:.2e} {:.0} tok/s ETA {:.0}s\x1b[K",
                "#".repeat(done),
                "-".repeat(30 - done),
                s.step,
                max_iters,
                s.loss,
                s.lr,
                rate * s.tokens as f64,
                eta
            );
            let _ = std::io::stderr().flush();
        }
        if s.step % a.eval_interval.max(1) == 0 || s.step == max_iters {
            last = report(&mut trainer, train_secs)?;
        }
    }
    if a.json {
        last["summary"] = true.into();
        println!("{last}");
    } else if let Some(out) = &a.out {
        println!("saved {}", out.display());
    }
    Ok(())
}
