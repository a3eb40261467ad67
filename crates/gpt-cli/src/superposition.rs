//! `gpt superposition`: Elhage et al.'s toy model of superposition trained on the CPU, and what it
//! learned (each feature's norm and dimensionality, `W Wᵀ`, features per dimension); or with
//! `--phase`, a phase diagram, its cells shared among threads; with `--score`, learned directions
//! scored against true features (`truth_score.rs`); with `--synthetic`, an autoencoder trained on
//! activations of known features and scored against them (`synthetic_sae.rs`).

use gpt::toy::{Cell, Geometry, Phase, PhaseSpec, SyntheticSpec, ToyRun, ToySettings, Variant};
use gpt::TrainConfig;

#[derive(clap::Args)]
pub struct Args {
    /// Features `n`.
    #[arg(long, default_value_t = 5)]
    features: usize,
    /// Hidden dimensions `m` they are squeezed into.
    #[arg(long, default_value_t = 2)]
    hidden: usize,
    /// The chance a feature is 0 in a row, `S`.
    #[arg(long, default_value_t = 0.9)]
    sparsity: f32,
    /// Feature `i`'s importance is this to the power `i`.
    #[arg(long, default_value_t = 0.9)]
    importance_decay: f32,
    /// Elhage's model: ReLU on the output (it superposes), linear, or ReLU on the hidden layer too.
    #[arg(long, value_enum, default_value = "relu-output")]
    variant: VariantFlag,
    /// Steps (Elhage's recipe, shortened: AdamW at a constant 3e-3 on batches of 1024).
    #[arg(long, default_value_t = 3000)]
    steps: usize,
    #[arg(long, default_value_t = 1337)]
    seed: u64,
    /// The constant learning rate.
    #[arg(long, default_value_t = ToyRun::recipe().learning_rate)]
    lr: f32,
    /// Train by SGD with this momentum (0: plain SGD, as Chen et al. 2023 train it) instead of AdamW.
    #[arg(long)]
    sgd: Option<f32>,
    /// A phase diagram instead: `2x1` (2 features in 1 dimension) or `3x2`.
    #[arg(long)]
    phase: Option<String>,
    /// Cells on each side of the diagram.
    #[arg(long, default_value_t = 20)]
    side: usize,
    /// Threads that share the diagram's cells (every core by default).
    #[arg(long)]
    threads: Option<usize>,
    /// Train a TopK autoencoder on activations built from known features instead, then score it
    /// against them: `--features` unit directions in `--hidden` dimensions, each firing with
    /// probability 1 − `--sparsity` (or by Zipf's law, `--zipf`) at magnitude 1.
    #[arg(long)]
    synthetic: bool,
    /// With --synthetic: orthogonal directions (more than one per dimension are pushed as nearly
    /// orthogonal as they can be, as SAELens's orthogonal_initializer does), else random ones.
    #[arg(long)]
    orthogonal: bool,
    /// With --synthetic: firing probabilities by Zipf's law, `MAX,MIN` (e.g. 0.3,0.01).
    #[arg(long)]
    zipf: Option<String>,
    /// With --synthetic: a hierarchy of this many children per parent (a child fires only with its parent).
    #[arg(long, default_value_t = 0)]
    children: usize,
    /// With --synthetic: features that fire together, `RANK,SCALE` (e.g. 16,0.075): each feature's
    /// loadings on RANK shared factors are normal with spread SCALE, as SAELens's
    /// generate_random_low_rank_correlation_matrix draws them.
    #[arg(long)]
    correlation: Option<String>,
    /// With --synthetic: the spread of a firing feature's magnitude around 1.
    #[arg(long, default_value_t = 0.0)]
    magnitude_std: f32,
    /// Then train an autoencoder this many steps on the trained model's hidden layer, whose true
    /// features are W's rows, and score it against them (`--architecture`, `--k` [default 1],
    /// `--expansion`); with --json, a second line.
    #[arg(long, conflicts_with_all = ["synthetic", "phase", "score"])]
    sae: Option<usize>,
    /// With --synthetic: read the activations from this safetensors file instead of building them:
    /// `activations` and `held_out` (rows × d), the `truth` they were built from (features × d),
    /// and optionally `held_out_firing` (rows × features), float32, as
    /// `python/check_synthetic_sae.py` writes SAELens's generator's.
    #[arg(long, requires = "synthetic")]
    activations: Option<std::path::PathBuf>,
    /// With --synthetic or --sae: the autoencoder's latents per dimension.
    #[arg(long, default_value_t = 1)]
    expansion: usize,
    #[command(flatten)]
    architecture: crate::architecture_flags::ArchitectureFlags,
    /// Score learned directions against true features instead: a safetensors file holding
    /// `learned` (rows × d) and `truth` (features × d), float32. Prints the MCC (SAELens's
    /// Hungarian matching), the share of true features found and the uniqueness.
    #[arg(long)]
    score: Option<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Also write what a check replays (python/check_superposition.py), as JSON: the settings,
    /// the recipe, the initial W and b, each step's rows and training loss. With --synthetic, the
    /// generator's (python/check_correlation.py): the probabilities, the correlation's factor and
    /// thresholds, and the features firing in the first 20,000 training rows.
    #[arg(long)]
    trace: Option<std::path::PathBuf>,
    #[command(flatten)]
    llc: crate::superposition_llc::ToyLlcFlags,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum VariantFlag {
    ReluOutput,
    Linear,
    ReluHidden,
}

pub fn run(a: Args) -> Result<(), String> {
    if a.synthetic {
        let plan = crate::synthetic_sae::Plan {
            architecture: a.architecture.architecture(4)?,
            expansion: a.expansion,
            steps: a.steps,
            threads: threads(&a),
            seed: a.seed,
        };
        if let Some(path) = &a.activations {
            let what = format!("the activations of {}", path.display());
            return crate::synthetic_sae::run(plan, crate::synthetic_sae::recorded(path)?, &what, a.json);
        }
        let spec = SyntheticSpec {
            features: a.features,
            dims: a.hidden,
            orthogonal: a.orthogonal,
            firing: crate::synthetic_sae::firing(a.zipf.as_deref(), a.sparsity)?,
            magnitude_mean: 1.0,
            magnitude_std: a.magnitude_std,
            children: a.children,
            correlation: crate::synthetic_sae::correlation(a.correlation.as_deref())?,
            seed: a.seed,
        };
        let source = gpt::toy::Synthetic::new(spec).map_err(|e| e.to_string())?;
        if let Some(path) = &a.trace {
            crate::synthetic_sae::trace(&source, path)?;
        }
        let what = format!("{} features in {} dimensions", spec.features, spec.dims);
        return crate::synthetic_sae::run(plan, source, &what, a.json);
    }
    if let Some(file) = &a.score {
        return crate::truth_score::run(file, a.json);
    }
    if let Some(shape) = &a.phase {
        return phase(&a, shape);
    }
    let variant = match a.variant {
        VariantFlag::ReluOutput => Variant::ReluOutput,
        VariantFlag::Linear => Variant::Linear,
        VariantFlag::ReluHidden => Variant::ReluHidden,
    };
    let settings = ToySettings {
        features: a.features,
        hidden: a.hidden,
        sparsity: a.sparsity,
        importance_decay: a.importance_decay,
        last_importance: None,
        variant,
    };
    let mut train = TrainConfig { learning_rate: a.lr, min_lr: a.lr, ..ToyRun::recipe_for(a.steps, a.seed) };
    if let Some(momentum) = a.sgd {
        train = train.with_optimizer("sgd", serde_json::json!({ "sgd_momentum": momentum }));
    }
    let mut run = ToyRun::new(settings, train.clone()).map_err(|e| e.to_string())?;
    let start_weights = run.geometry();
    if a.trace.is_some() {
        run.keep_rows();
    }
    let start = std::time::Instant::now();
    let clock = || start.elapsed().as_secs_f64() * 1e3;
    let mut llcs = Vec::new();
    let every = a.llc.llc.filter(|&n| n > 0);
    if every.is_some() {
        llcs.push(a.llc.record(&run, a.json)?);
    }
    while !run.done() {
        run.train(every.unwrap_or(500), &clock).map_err(|e| e.to_string())?;
        if every.is_some() {
            llcs.push(a.llc.record(&run, a.json)?);
        }
    }
    if let Some(path) = &a.trace {
        let trace = serde_json::json!({ "settings": settings, "train": train, "w": start_weights.w, "b": start_weights.b,
            "rows": run.kept_rows(), "losses": run.trainer().history().losses });
        std::fs::write(path, trace.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let g = run.geometry();
    let evals = &run.trainer().history().evals;
    let loss = evals.last().map_or(f32::NAN, |e| e.val_loss);
    if a.json {
        let line = serde_json::json!({ "settings": settings, "steps": run.trainer().step_count(), "loss": loss,
            "seconds": start.elapsed().as_secs_f64(), "geometry": g, "evals": evals, "llc": llcs });
        println!("{line}");
    } else {
        print(&g, settings, loss, start.elapsed().as_secs_f64());
    }
    let Some(steps) = a.sae else { return Ok(()) };
    let (expansion, seed, threads) = (a.expansion, a.seed, threads(&a));
    let plan =
        crate::synthetic_sae::Plan { architecture: a.architecture.architecture(1)?, expansion, steps, threads, seed };
    let hidden = gpt::toy::ToyHidden::new(run.model());
    crate::synthetic_sae::run(plan, hidden, &format!("its hidden layer ({} dimensions)", settings.hidden), a.json)
}

fn print(g: &Geometry, s: ToySettings, loss: f32, seconds: f64) {
    println!(
        "{} features in {} dimensions, sparsity {}, importance {}^i: held-out loss {loss:.5} after {seconds:.2} s",
        s.features, s.hidden, s.sparsity, s.importance_decay
    );
    println!("  {:.2} features per dimension", g.features_per_dimension);
    println!("  feature  importance  norm  dimensionality  direction");
    for i in 0..g.features {
        let direction: Vec<String> = g.w[i * g.hidden..(i + 1) * g.hidden].iter().map(|v| format!("{v:+.3}")).collect();
        println!(
            "  {i:>7}  {:>10.3}  {:>4.2}  {:>14.3}  ({})",
            s.importance()[i],
            g.norms[i],
            g.dimensionality[i],
            direction.join(", ")
        );
    }
    println!("  W Wᵀ:");
    for i in 0..g.features {
        let row: Vec<String> =
            g.gram[i * g.features..(i + 1) * g.features].iter().map(|v| format!("{v:+.2}")).collect();
        println!("    {}   b {:+.3}", row.join(" "), g.b[i]);
    }
}

/// `--threads`, or every core.
fn threads(a: &Args) -> usize {
    a.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// The phase diagram `shape` (`2x1`, `3x2`) asks for, its cells on `--threads` threads.
fn phase(a: &Args, shape: &str) -> Result<(), String> {
    let bad = || format!("--phase: {shape:?} is not 2x1 or 3x2 (features x dimensions)");
    let (n, m) = shape.split_once('x').ok_or_else(bad)?;
    let (n, m) = (n.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    let spec = PhaseSpec::new(n, m, a.side, a.seed).map_err(|e| e.to_string())?;
    let threads = threads(a);
    let start = std::time::Instant::now();
    let cells: Vec<Result<Cell, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let spec = &spec;
                scope.spawn(move || {
                    (k..spec.cells())
                        .step_by(threads)
                        .map(|i| spec.cell(i).map_err(|e| e.to_string()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<Result<Cell, String>> =
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect();
        all.sort_by_key(|c| c.as_ref().map_or(usize::MAX, |c| c.index));
        all
    });
    let cells = cells.into_iter().collect::<Result<Vec<_>, _>>()?;
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        println!("{}", serde_json::json!({ "spec": spec, "seconds": seconds, "cells": cells }));
        return Ok(());
    }
    let dimensions = if m == 1 { "1 dimension".to_string() } else { format!("{m} dimensions") };
    let threads = if threads == 1 { "one thread".to_string() } else { format!("{threads} threads") };
    println!(
        "{n} features in {dimensions}: the last feature's fate, {} cells in {seconds:.1} s on {threads}",
        cells.len()
    );
    println!("  rows: feature density 1 to 0.01 (top to bottom); columns: its importance 0.1 to 10 (left to right)");
    println!("  . not stored   A alone in a dimension   S in superposition");
    for row in cells.chunks(spec.side) {
        let marks: String = row
            .iter()
            .map(|c| match c.phase {
                Phase::NotStored => '.',
                Phase::Alone => 'A',
                Phase::Superposed => 'S',
            })
            .collect();
        println!("  {:>6.3}  {marks}", row[0].density);
    }
    Ok(())
}
