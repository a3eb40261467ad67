//! The run `gpt train` trains: a new one from the preset and the flags that override it, or the
//! one a checkpoint holds.

use super::args::Args;
use crate::setting_flags::Owner;
use gpt::{Run, Settings, TokenizerKind};
use std::time::Instant;

/// The preset the flags ask for: named, or the task's own, or nanoGPT's CPU recipe.
fn preset(a: &Args) -> Result<gpt::presets::Preset, String> {
    let name = match (&a.preset, &a.task) {
        (Some(name), _) => name.as_str(),
        (None, Some(task)) => gpt::task_named(task).map_or("", |t| t.preset().name),
        (None, None) => "nano-cpu",
    };
    crate::shared::preset(name)
}

/// A new run from the preset and flags, or the one a checkpoint holds, training on `text` (none
/// for a task).
pub(super) fn open_run(a: &Args, text: Option<&str>) -> Result<Run, String> {
    if let Some(path) = &a.resume {
        if let Some(flag) = a.overrides().first() {
            return Err(format!("{flag} cannot change a resumed run; it keeps the checkpoint's settings"));
        }
        let mut run = crate::shared::open_run(path)?;
        match (text, &a.data) {
            (Some(text), Some(data)) => run.use_text(text).map_err(|e| format!("{}: {e}", data.display()))?,
            _ if run.task().is_some() => {}
            _ => return Err(format!("{} trains on text: give it with --data", path.display())),
        }
        if let Some(iters) = a.iters {
            run.set_max_iters(iters).map_err(crate::shared::explain)?;
        }
        run.set_evaluation(a.eval_interval, a.eval_iters);
        return Ok(run);
    }
    let preset = preset(a)?;
    let mut s = Settings { tokenizer: a.tokenizer, bpe_vocab_size: a.vocab_size, ..preset.settings };
    if let Some(name) = &a.task {
        let task = s.task.take().filter(|t| &t.name == name);
        let own = || gpt::task_named(name).and_then(|t| gpt::presets::for_task(t).settings.task);
        s.task = Some(task.or_else(own).ok_or_else(|| format!("unknown task {name:?}"))?);
    }
    if let Some(task) = s.task.as_mut() {
        let owner = format!("the {} task", task.name);
        let fraction = a.settings.value(&gpt::data::TRAIN_FRACTION)?;
        task.train_fraction = fraction.and_then(|v| v.as_f64()).map_or(task.train_fraction, |f| f as f32);
        let own = task.task().fields().iter().chain([&gpt::data::TRAIN_FRACTION]).cloned().collect::<Vec<_>>();
        a.settings.apply(&own, &mut task.settings, Owner::Task, &owner)?;
        task.settings.remove(gpt::data::TRAIN_FRACTION.name);
        if a.block_size.is_none() {
            s.model.block_size = s.model.block_size.max(task.validate().map_or(0, |_| task.max_len()));
        }
    } else if let Some(flag) = a.settings.given(Owner::Task).first() {
        return Err(format!("{flag} is a task's setting: give --task too"));
    }
    let text = match (&s.task, text) {
        (Some(_), _) => "",
        (None, Some(text)) => text,
        (None, None) => return Err(format!("the {} preset trains on text: give it with --data", preset.name)),
    };
    macro_rules! set {
        ($($group:ident . $name:ident = $arg:ident),*) => { $(if let Some(v) = a.$arg { s.$group.$name = v; })* };
    }
    set!(
        model.n_layer = n_layer,
        model.n_head = n_head,
        model.n_embd = n_embd,
        model.block_size = block_size,
        model.dropout = dropout,
        model.norm = norm,
        model.activation = activation,
        model.bias = bias,
        model.tie_weights = tie_weights,
        train.batch_size = batch_size,
        train.learning_rate = lr,
        train.min_lr = min_lr,
        train.warmup_iters = warmup,
        train.max_iters = iters,
        train.seed = seed,
        train.weight_decay = weight_decay,
        train.eval_iters = eval_iters
    );
    // A preset's warmup shortens with --iters, unless --warmup was given too.
    if a.warmup.is_none() {
        s.train.warmup_iters = s.train.warmup_iters.min(s.train.max_iters);
    }
    if let Some(name) = &a.optimizer {
        if *name != s.train.optimizer {
            s.train = s.train.with_optimizer(name, serde_json::Value::Null);
        }
    }
    let kind = s.train.kind().ok_or_else(|| format!("unknown optimizer {:?}", s.train.optimizer))?;
    let who = format!("the {} optimizer", kind.name);
    a.settings.apply(kind.fields, &mut s.train.optimizer_settings, Owner::Optimizer, &who)?;
    s.model.rope |= a.rope;
    s.model.qk_norm |= a.qk_norm;
    s.train.eval_interval = a.eval_interval.or(s.train.eval_interval);
    let building = Instant::now();
    let run = Run::create(&s, text, &crate::shared::budget()).map_err(crate::shared::explain)?;
    if a.tokenizer == TokenizerKind::Bpe && !a.json {
        let secs = building.elapsed().as_secs_f64();
        println!("byte-pair tokenizer: {} tokens, learned with the model built in {secs:.2} s", run.vocab_size());
    }
    Ok(run)
}
