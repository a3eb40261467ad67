//! `gpt train`: a preset, overridden field by field, trained on a text file or a task; or a
//! checkpoint, resumed exactly where it stopped.

use gpt::Run;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

mod args;
mod build;

pub use args::Args;

fn save(path: &Path, run: &Run) -> Result<(), String> {
    let bytes = run.save().map_err(|e| e.to_string())?;
    // Write beside, then rename: an interrupted save never destroys the previous checkpoint.
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

pub fn run(a: Args) -> Result<(), String> {
    let text = a.data.as_deref().map(crate::shared::read_text).transpose()?;
    let mut run = build::open_run(&a, text.as_deref())?;
    run.set_threads(a.threads.unwrap_or_else(crate::shared::all_cores));
    let (max_iters, optimizer) = (run.train_config().max_iters, run.train_config().optimizer.clone());
    // What the settings do to the task's phenomenon, as the page says it beside the fields.
    for outlook in run.task().map_or(vec![], |task| task.config().outlook()) {
        let steps = outlook.steps.filter(|&s| s > max_iters).map(|s| format!("--iters {s}"));
        let by = outlook.optimizer.filter(|&o| o != optimizer).map(|o| format!("--optimizer {o}"));
        let flags: Vec<String> = steps.into_iter().chain(by).collect();
        let flags = if flags.is_empty() { String::new() } else { format!(" ({})", flags.join(" ")) };
        eprintln!("note: {}{flags}", outlook.says);
    }
    if !a.json {
        println!(
            "{} parameters, vocabulary {}, {} tokens per step, {} threads",
            run.model().params().count(),
            run.vocab_size(),
            run.tokens_per_step(),
            run.workers()
        );
    }
    let tty = std::io::stderr().is_terminal() && !a.json;
    let start = Instant::now();
    let report = |run: &mut Run| -> Result<serde_json::Value, String> {
        let e = run.evaluate_timed(&crate::shared::now_ms).map_err(|e| e.to_string())?;
        let tps = run.session_tokens_per_s();
        let wall = start.elapsed().as_secs_f64();
        let mut line = serde_json::json!({"step": e.step, "train_loss": e.train_loss, "val_loss": e.val_loss, "tokens_per_s": tps.round(), "wall_s": wall, "records_s": run.records_s()});
        if let (Some(train), Some(val)) = (e.train_accuracy, e.val_accuracy) {
            (line["train_accuracy"], line["val_accuracy"]) = (train.into(), val.into());
        }
        // The moments the page's chart marks (an induction head, memorised, generalised), so that
        // a script can tell when a phenomenon formed.
        let milestones = run.milestones();
        // The learning coefficient, when this evaluation recorded it (paced: not every one does).
        let llc = milestones.llc.points.last().filter(|p| p.step == e.step).and_then(|p| p.mean.map(|m| (m, p.std)));
        line["milestones"] = serde_json::to_value(milestones).map_err(|e| e.to_string())?;
        if a.json {
            println!("{line}");
        } else {
            if tty {
                eprint!("\r\x1b[K");
            }
            let accuracy = match (e.train_accuracy, e.val_accuracy) {
                (Some(train), Some(val)) => {
                    format!(", accuracy {:.1}% train, {:.1}% held out", 100.0 * train, 100.0 * val)
                }
                _ => String::new(),
            };
            let llc = llc.map_or(String::new(), |(mean, std)| format!(", LLC {mean:.2} ± {std:.2}"));
            println!(
                "step {:>5}: train loss {:.4}, val loss {:.4}{accuracy}{llc}, {:.0} tokens/s, {:.1} s",
                e.step, e.train_loss, e.val_loss, tps, wall
            );
        }
        if let Some(out) = &a.out {
            save(out, run)?;
        }
        if let Some(folder) = &a.keep_each {
            std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
            save(&folder.join(format!("step-{:06}.safetensors", e.step)), run)?;
        }
        Ok(line)
    };
    let mut last = report(&mut run)?;
    while run.step_count() < max_iters {
        let r = run.train(1, &crate::shared::now_ms).map_err(|e| e.to_string())?;
        if let Some(why) = r.stopped {
            return Err(why);
        }
        if tty {
            let done = 30 * r.step / max_iters;
            eprint!(
                "\r[{}{}] {}/{} loss {:.4} lr {:.2e} {:.0} tok/s ETA {:.0}s\x1b[K",
                "#".repeat(done),
                "-".repeat(30 - done),
                r.step,
                max_iters,
                r.losses[0],
                r.lr,
                run.session_tokens_per_s(),
                r.eta_s
            );
            let _ = std::io::stderr().flush();
        }
        if run.eval_due() {
            last = report(&mut run)?;
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

#[cfg(test)]
mod tests;
