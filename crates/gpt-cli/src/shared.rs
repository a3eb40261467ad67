//! What the subcommands share: presets by name, files read with one-line errors, errors that
//! name the flag at fault, and the machine's limits and clock.

use crate::setting_flags;

/// The preset called `name`, or an error listing the ones there are.
pub fn preset(name: &str) -> Result<gpt::presets::Preset, String> {
    gpt::presets::preset(name).ok_or_else(|| {
        let names: Vec<_> = gpt::presets::presets().iter().map(|p| p.name).collect();
        format!("unknown preset {name:?}; choose one of {}", names.join(", "))
    })
}

/// A core error as one line; an invalid setting names the flag that sets it.
pub fn explain(e: gpt::Error) -> String {
    let gpt::Error::Invalid(problem) = &e else { return e.to_string() };
    let flag = match problem.field.rsplit('.').next().unwrap_or_default() {
        "max_iters" => "--iters",
        "learning_rate" => "--lr",
        "warmup_iters" => "--warmup",
        "bpe_vocab_size" => "--vocab-size",
        name @ ("n_layer" | "n_head" | "n_embd" | "block_size" | "dropout" | "batch_size" | "min_lr" | "seed"
        | "eval_interval" | "eval_iters" | "weight_decay" | "rope" | "qk_norm" | "optimizer") => {
            return format!("{}: {e}", setting_flags::flag(name))
        }
        name if setting_flags::describes(name) => return format!("{}: {e}", setting_flags::flag(name)),
        // Settings with no flag come from the preset or the checkpoint.
        _ => return e.to_string(),
    };
    format!("{flag}: {e}")
}

/// The run saved at `path`, or a one-line reason it cannot be opened.
pub fn open_run(path: &std::path::Path) -> Result<gpt::Run, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    gpt::Run::open(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The flags that open a saved run for reading: the checkpoint, and for a text run the text it
/// trained on (a checkpoint keeps the text's counts, not the text).
#[derive(clap::Args)]
pub struct RunFlags {
    #[arg(long)]
    pub checkpoint: std::path::PathBuf,
    /// The text a text run trained on, whose held-out part is what is read; a task's run makes its
    /// own problems.
    #[arg(long)]
    data: Option<std::path::PathBuf>,
}

impl RunFlags {
    /// The run, with its text when given, or a one-line reason it cannot be opened.
    pub fn open(&self) -> Result<gpt::Run, String> {
        self.open_at(&self.checkpoint)
    }

    /// Another checkpoint of the same run (one `gpt train --keep-each` kept), with the same text.
    pub fn open_at(&self, checkpoint: &std::path::Path) -> Result<gpt::Run, String> {
        let mut run = open_run(checkpoint)?;
        if let Some(data) = &self.data {
            run.use_text(&read_text(data)?).map_err(|e| format!("{}: {e}", data.display()))?;
        }
        Ok(run)
    }
}

/// A file's text, or a one-line reason it cannot be read.
pub fn read_text(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// What this machine can train: a model whose training step fits in its memory.
pub fn budget() -> gpt::Budget {
    let total_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| {
        let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    });
    match total_kib {
        Some(kib) => gpt::Budget { max_training_bytes: kib * 1024, ..gpt::Budget::UNLIMITED },
        None => gpt::Budget::UNLIMITED,
    }
}

/// Every core this process may use: the default for `--threads`.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Milliseconds since the first call, for [`gpt::Run::train`]'s timing.
pub fn now_ms() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1e3
}

/// Trains `steps` steps, `every` at a time, by `train` (a chunk of `n` steps: its report and the
/// step count after it), and calls `after(run, step, seconds spent training, report)` after each.
pub fn train_in_chunks(
    run: &mut gpt::Run,
    steps: usize,
    every: usize,
    mut train: impl FnMut(&mut gpt::Run, usize) -> gpt::Result<(gpt::train::TrainReport, usize)>,
    mut after: impl FnMut(&gpt::Run, usize, f64, &gpt::train::TrainReport) -> Result<(), String>,
) -> Result<(), String> {
    let (mut train_s, mut step) = (0.0, 0);
    while step < steps {
        let n = every.max(1).min(steps - step);
        let start = now_ms();
        let (report, count) = train(run, n).map_err(|e| e.to_string())?;
        train_s += (now_ms() - start) / 1e3;
        if let Some(reason) = report.stopped {
            return Err(reason);
        }
        // A trainer that took no step moves the count on anyway, so the loop ends.
        step = if count > step { count } else { step + n };
        after(run, step, train_s, &report)?;
    }
    Ok(())
}
