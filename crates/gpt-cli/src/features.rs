//! `gpt features`: train a sparse autoencoder on a checkpoint's model, at a hook point (or a
//! transcoder standing in for an MLP), from the run's own text or problems, reporting SAELens's measures on held-out batches as it goes; and
//! write it in SAELens's format (`--out`), for `SAE.load_from_disk`.

use gpt::model::HookPoint;
use gpt::sae::SaeConfig;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: crate::shared::RunFlags,
    /// The hook point, by TransformerLens's name [default: the stream leaving the last block,
    /// `blocks.L.hook_resid_post`]; `blocks.0.hook_mlp_out` reads an MLP's output.
    #[arg(long)]
    hook: Option<String>,
    /// Train a transcoder for this block's MLP instead (from 0): from what the MLP reads
    /// (`blocks.N.ln2.hook_normalized`) to what it writes (`blocks.N.hook_mlp_out`); not with --hook.
    #[arg(long, conflicts_with = "hook")]
    transcoder: Option<usize>,
    /// Train a transcoder for every MLP, together (what circuit tracing replaces the MLPs by), and
    /// measure the replacement model against the model.
    #[arg(long, conflicts_with_all = ["hook", "transcoder", "sae"])]
    transcoders: bool,
    /// Features per channel of the model.
    #[arg(long, default_value_t = 8)]
    expansion: usize,
    #[command(flatten)]
    architecture: crate::architecture_flags::ArchitectureFlags,
    /// With --transcoder or --transcoders: add a linear skip connection from what each MLP reads to
    /// what it writes (SAELens's SkipTranscoder).
    #[arg(long)]
    skip: bool,
    /// A feature that has not fired for this many training tokens counts as dead.
    #[arg(long, default_value_t = 200_000)]
    dead_tokens: usize,
    /// Training steps [default: 1000, or none with --sae].
    #[arg(long)]
    steps: Option<usize>,
    /// Begin from an autoencoder saved in SAELens's format (by --out, or SAELens's
    /// save_inference_model) instead of a fresh one; its own hook and sizes replace the flags'.
    #[arg(long)]
    sae: Option<PathBuf>,
    /// Rows per step (each a block of the text, or a problem).
    #[arg(long, default_value_t = 64)]
    rows: usize,
    /// Adam's learning rate, constant.
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    #[arg(long, default_value_t = 1337)]
    seed: u64,
    /// Measure every this many steps (and at the end).
    #[arg(long, default_value_t = 100)]
    every: usize,
    /// Held-out batches each measurement reads.
    #[arg(long, default_value_t = 8)]
    measure_batches: usize,
    /// Threads [default: every core].
    #[arg(long)]
    threads: Option<usize>,
    /// Write the autoencoder here, as SAELens saves one (`cfg.json`, `sae_weights.safetensors`);
    /// with --transcoders, each in its own folder here (`layer_0`, …).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write what the measures read, to check against SAELens: the held-out rows (JSON: b, t,
    /// each batch's ids and targets, -1 where the loss skips) and the first batch's codes (with
    /// --transcoders, the rows alone).
    #[arg(long)]
    rows_out: Option<PathBuf>,
    /// Print each measurement as one line of JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    views: crate::feature_views::Views,
    #[command(flatten)]
    graph: crate::graph::GraphFlags,
    /// Write the run, with what this trained, as a checkpoint here (open it again with
    /// --checkpoint: its transcoders trace prompts with --graph and --steps 0).
    #[arg(long)]
    save: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<(), String> {
    let mut run = a.run.open()?;
    let layers = run.model().config().n_layer;
    let (point, output) = match (&a.hook, a.transcoder) {
        // Every layer's transcoder is block 0's kind.
        _ if a.transcoders => (HookPoint::MlpIn { layer: 0 }, Some(HookPoint::MlpOut { layer: 0 })),
        (_, Some(layer)) => (HookPoint::MlpIn { layer }, Some(HookPoint::MlpOut { layer })),
        (None, None) => (HookPoint::ResidPost { layer: layers.saturating_sub(1) }, None),
        (Some(name), None) => (
            HookPoint::parse(name).ok_or(format!(
                "--hook: {name:?} is not blocks.N.hook_resid_post or blocks.N.hook_mlp_out (N from 0)"
            ))?,
            None,
        ),
    };
    let architecture = a.architecture.architecture(32)?;
    let config =
        SaeConfig { point, output, expansion: a.expansion, architecture, dead_tokens: a.dead_tokens, skip: a.skip };
    let steps = a.steps.unwrap_or(if a.sae.is_some() { 0 } else { 1000 });
    let train = gpt::sae::recipe(a.rows, steps.max(1), a.lr, a.seed);
    let threads = a.threads.unwrap_or_else(crate::shared::all_cores);
    if a.out.is_some() {
        gpt::interop::saelens::check_exportable(&config).map_err(|e| format!("--out: {e}"))?;
    }
    let name = a.run.checkpoint.file_stem().map_or("gpt-playground".into(), |s| s.to_string_lossy().into_owned());
    if a.transcoders || (a.graph.is_set() && steps == 0) {
        if a.transcoders && steps > 0 {
            run.start_transcoders(config, train, threads).map_err(crate::shared::explain)?;
            crate::transcoders::train(&mut run, steps, a.every, a.measure_batches, a.json)?;
        }
        crate::graph::show(&run, &a.graph, &name, a.json)?;
        save(&run, a.save.as_deref())?;
        if let Some(path) = &a.rows_out {
            let rows = rows_value(&run.transcoder_rows(a.measure_batches).map_err(|e| e.to_string())?);
            std::fs::write(path, rows.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        if let Some(dir) = &a.out {
            let trainee = run.transcoders().ok_or("the transcoders are gone")?.model();
            for (layer, transcoder) in trainee.dictionaries().each().into_iter().enumerate() {
                write_sae(&dir.join(format!("layer_{layer}")), transcoder, &name, run.seq_len())?;
            }
        }
        return Ok(());
    }
    match &a.sae {
        None => run.start_features(config, train, threads),
        Some(dir) => {
            let sae = read_sae(dir, layers, run.model().config().n_embd)?;
            run.use_features(sae, train, threads, false)
        }
    }
    .map_err(crate::shared::explain)?;
    let train_chunk = |run: &mut gpt::Run, n| {
        let report = run.train_features(n, &crate::shared::now_ms)?;
        Ok((report, run.features().map_or(0, |t| t.step_count())))
    };
    crate::shared::train_in_chunks(&mut run, steps, a.every, train_chunk, |run, step, train_s, report| {
        let m = run.feature_measures(a.measure_batches).map_err(|e| e.to_string())?;
        let tokens = step * a.rows * run.seq_len();
        if a.json {
            let line = serde_json::json!({ "step": step, "tokens": tokens, "train_s": train_s,
                "tokens_per_s": tokens as f64 / train_s, "loss": report.losses.last(), "measures": m });
            println!("{line}");
        } else {
            println!(
                "step {step:>6}  {tokens:>9} tokens  {train_s:>6.1}s  variance explained {:.3}  L0 {:.1}  \
                 dead {:.1}%  silent {:.1}% of {} held-out tokens  dense {:.1}%  loss added {:.4}  \
                 loss recovered {:.3} ({:.3} with it, {:.3} clean, {:.3} zeroed)",
                m.explained_variance,
                m.l0,
                100.0 * m.dead,
                100.0 * m.silent,
                m.tokens,
                100.0 * m.dense,
                m.loss_added,
                m.loss_recovered,
                m.loss_with_sae,
                m.loss_clean,
                m.loss_zeroed
            );
        }
        Ok(())
    })?;
    crate::feature_views::show(&run, &a.views, a.measure_batches, a.json)?;
    save(&run, a.save.as_deref())?;
    if let Some(path) = &a.rows_out {
        std::fs::write(path, rows_json(&run, a.measure_batches)?.to_string())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(dir) = &a.out {
        let trainer = run.features().ok_or("the autoencoder is gone")?;
        write_sae(dir, trainer.model().sae().view(), &name, run.seq_len())?;
    }
    Ok(())
}

/// Writes the run as a checkpoint at `path`, if given.
fn save(run: &gpt::Run, path: Option<&std::path::Path>) -> Result<(), String> {
    let Some(path) = path else { return Ok(()) };
    std::fs::write(path, run.save().map_err(|e| e.to_string())?).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("saved {}", path.display());
    Ok(())
}

/// Writes `sae` into `dir` in SAELens's format.
fn write_sae(dir: &std::path::Path, sae: gpt::sae::SaeRef, name: &str, context: usize) -> Result<(), String> {
    let files = gpt::interop::saelens::export_sae(sae, name, context).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (file, bytes) in files {
        let path = dir.join(file);
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    eprintln!("wrote {} (SAELens: SAE.load_from_disk(\"{}\"))", dir.display(), dir.display());
    Ok(())
}

/// The held-out rows the measures read, and the features that fire on the first batch's tokens.
fn rows_json(run: &gpt::Run, batches: usize) -> Result<serde_json::Value, String> {
    let rows = run.feature_rows(batches).map_err(|e| e.to_string())?;
    let sae = run.features().ok_or("the autoencoder is gone")?.model();
    let (idx, targets) = &rows.batches[0];
    let batch = gpt::Batch { idx, targets, b: rows.b, t: rows.t };
    let ws = gpt::workspace::Workspace::default();
    let read = sae.activations(&ws, batch).map_err(|e| e.to_string())?.swap_remove(0).0;
    let codes = sae.sae().encode(&ws, &read);
    let mut value = rows_value(&rows);
    value["codes"] = serde_json::json!({ "starts": codes.starts, "features": codes.features, "values": codes.values });
    Ok(value)
}

/// Held-out rows as JSON: b, t, and each batch's ids and targets (-1 where the loss skips).
fn rows_value(rows: &gpt::run::FeatureRows) -> serde_json::Value {
    let signed =
        |v: &[usize]| -> Vec<i64> { v.iter().map(|&t| if t == gpt::ops::IGNORE { -1 } else { t as i64 }).collect() };
    let batches: Vec<_> = rows
        .batches
        .iter()
        .map(|(ids, targets)| serde_json::json!({ "ids": ids, "targets": signed(targets) }))
        .collect();
    serde_json::json!({ "b": rows.b, "t": rows.t, "batches": batches })
}

/// An autoencoder saved in SAELens's format in `dir`.
fn read_sae(dir: &std::path::Path, layers: usize, d_in: usize) -> Result<gpt::sae::Sae, String> {
    let read =
        |name: &str| std::fs::read(dir.join(name)).map_err(|e| format!("--sae: {}: {e}", dir.join(name).display()));
    let cfg = String::from_utf8(read("cfg.json")?).map_err(|_| "--sae: cfg.json is not UTF-8".to_string())?;
    gpt::interop::saelens::import_sae(&cfg, &read("sae_weights.safetensors")?, layers, d_in)
        .map_err(|e| format!("--sae: {e}"))
}
