//! `gpt inspect`: test what a checkpoint's heads do, as the page's views do: knock a head or an
//! MLP out, patch a clean input into a corrupted one, split the answer's logit among the parts,
//! score how heads compose, find the circuit behind an answer (`circuit.rs`), grokking's Fourier
//! measures, and the local learning coefficient (`llc.rs`). `--json` prints the view's data whole (with its history over training);
//! otherwise a table.

use gpt::inspect::{Fill, Questions};
use gpt::model::Site;
use serde_json::Value;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy)]
enum Measure {
    Ablation,
    Patching,
    Attribution,
    Composition,
    Fourier,
    Circuit,
    Llc,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: crate::shared::RunFlags,
    /// What to measure.
    #[arg(value_enum)]
    measure: Measure,
    /// The part to knock out, counting from 1: `L1H2` (layer 1, head 2) or `MLP1`; by default the
    /// head whose loss costs the most.
    #[arg(long)]
    ablate: Option<String>,
    /// Replace the knocked-out output by zeros, or by its mean over held-out rows.
    #[arg(long, default_value = "mean", value_parser = ["mean", "zero"])]
    fill: String,
    /// The clean input: a task's prompt (`bdca`, `12+34`) or a text; with --corrupted. Both left
    /// out: proposed from the run.
    #[arg(long, default_value = "")]
    clean: String,
    #[arg(long, default_value = "")]
    corrupted: String,
    /// Print the view's data as one JSON object.
    #[arg(long)]
    json: bool,
    /// Also write what the measure reads here, to check against another implementation: for
    /// ablation the held-out rows (JSON: ids, targets with -1 where the loss skips, rows,
    /// positions); for Fourier, which problems a + b (row a·p + b) are training ones; for the LLC,
    /// the chains' batches, nβ, L(w*) and the first chain's first step after burn-in (the weights
    /// it started from, its batch, noise, the weights it reached, the next step's batch and the
    /// step's MALA acceptance).
    #[arg(long)]
    rows_out: Option<PathBuf>,
    /// Threads that share exact patching's edges or the learning coefficient's chains [default:
    /// every core].
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    circuit: crate::circuit::CircuitFlags,
    #[command(flatten)]
    llc: crate::llc::LlcFlags,
}

pub fn run(a: Args) -> Result<(), String> {
    let threads = a.threads.unwrap_or_else(crate::shared::all_cores);
    let open = |path: &std::path::Path| {
        let mut run = a.run.open_at(path)?;
        run.set_threads(threads);
        Ok(run)
    };
    let run = open(&a.run.checkpoint)?;
    let name = match a.measure {
        Measure::Circuit => return crate::circuit::run(&run, &a.circuit, (&a.clean, &a.corrupted), a.json),
        Measure::Llc => return crate::llc::run(&run, &a.llc, (a.json, a.rows_out.as_deref()), &open),
        Measure::Ablation => "ablation",
        Measure::Patching => "patching",
        Measure::Attribution => "attribution",
        Measure::Composition => "composition",
        Measure::Fourier => "fourier",
    };
    if let Some(path) = &a.rows_out {
        let rows = match a.measure {
            Measure::Fourier => {
                serde_json::json!({ "train": run.modular_training_problems().map_err(|e| e.to_string())? })
            }
            _ => {
                let (ids, targets, rows, positions) = run.ablation_rows().map_err(|e| e.to_string())?;
                let targets: Vec<i64> =
                    targets.iter().map(|&t| if t == gpt::ops::IGNORE { -1 } else { t as i64 }).collect();
                serde_json::json!({ "ids": ids, "targets": targets, "rows": rows, "positions": positions })
            }
        };
        std::fs::write(path, rows.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let ablate = match &a.ablate {
        None => None,
        Some(label) => {
            Some(Site::parse(label).ok_or(format!("--ablate: {label:?} is not a head (L1H2) or an MLP (MLP1)"))?)
        }
    };
    let fill = if a.fill == "zero" { Fill::Zero } else { Fill::Mean };
    let questions = Questions { ablate, fill, clean: a.clean, corrupted: a.corrupted, ..Default::default() };
    let inside = run.inside(&[name.to_string()], "", "", &questions).map_err(|e| e.to_string())?;
    let data = &inside.views[name];
    if a.json {
        println!("{data}");
        return Ok(());
    }
    let n_head = inside.n_head;
    match a.measure {
        Measure::Ablation => print_ablation(data, n_head),
        Measure::Patching => print_patching(data, n_head),
        Measure::Attribution => {
            println!(
                "{:?} over {:?}: logit {:.4}, difference {:.4}",
                data["answer"],
                data["wrong"],
                f(&data["logit"]),
                f(&data["difference"])
            );
            for part in data["parts"].as_array().into_iter().flatten() {
                println!(
                    "{:>22} {:>9.4} {:>9.4}",
                    part["name"].as_str().unwrap_or(""),
                    f(&part["logit"]),
                    f(&part["difference"])
                );
            }
        }
        Measure::Composition if data.is_null() => println!("composition needs two layers or more"),
        Measure::Composition => {
            for kind in ["q", "k", "v"] {
                println!(
                    "{}-composition (rows: a head of layer l, columns: a head of layer l + 1)",
                    kind.to_uppercase()
                );
                print_grid(&data["now"][kind], n_head, |r| format!("L{}H{}", r / n_head + 1, r % n_head + 1));
            }
        }
        Measure::Fourier if data.is_null() => println!("the Fourier measures are for the modular task"),
        Measure::Circuit | Measure::Llc => {} // answered above, by circuit.rs and llc.rs
        Measure::Fourier => {
            let now = &data["now"];
            let norms: Vec<String> =
                now["norms"].as_array().into_iter().flatten().map(|n| format!("{:.2}", f(n))).collect();
            println!("step {}: key frequencies {}", now["step"], now["key"]);
            println!("embedding norm by frequency, from the constant: {}", norms.join(" "));
            println!("{:>7} {:>10} {:>10} {:>10} {:>10}", "step", "train", "test", "restricted", "excluded");
            for p in data["history"].as_array().into_iter().flatten() {
                let step = p["step"].as_u64().unwrap_or(0);
                println!(
                    "{step:>7} {:>10.4} {:>10.4} {:>10.4} {:>10.4}",
                    f(&p["train_loss"]),
                    f(&p["test_loss"]),
                    f(&p["restricted_loss"]),
                    f(&p["excluded_loss"])
                );
            }
        }
    }
    Ok(())
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// `values` as rows of `width`, row r named by `name(r)`.
fn print_grid(values: &Value, width: usize, name: impl Fn(usize) -> String) {
    let values: Vec<f64> = values.as_array().into_iter().flatten().map(f).collect();
    for (r, row) in values.chunks(width.max(1)).enumerate() {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:>8.3}")).collect();
        println!("{:>10} {}", name(r), cells.join(" "));
    }
}

fn print_ablation(data: &Value, n_head: usize) {
    let grid = &data["grid"];
    let accuracy = grid["head_accuracy"].as_array().is_some_and(|a| !a.is_empty());
    let heads: Vec<String> = (1..=n_head).map(|h| format!("head {h}")).collect();
    println!(
        "each part knocked out alone ({} fill, {} held-out rows); columns: {}, MLP",
        grid["fill"],
        grid["rows"],
        heads.join(", ")
    );
    let measures = [
        ("held-out accuracy lost (%)", "head_accuracy", "mlp_accuracy", 100.0),
        ("held-out loss added", "head_loss", "mlp_loss", 1.0),
    ];
    for (what, head, mlp, scale) in measures.into_iter().skip(usize::from(!accuracy)) {
        println!("{what}");
        let cost = |v: &Value, i: usize| scale * f(&v[i]);
        let layers = grid[mlp].as_array().map_or(0, Vec::len);
        let rows: Vec<f64> = (0..layers)
            .flat_map(|l| (0..n_head).map(move |h| (l, Some(h))).chain([(l, None)]))
            .map(|(l, h)| h.map_or_else(|| cost(&grid[mlp], l), |h| cost(&grid[head], l * n_head + h)))
            .collect();
        print_grid(&serde_json::json!(rows), n_head + 1, |r| format!("L{}", r + 1));
    }
    let a = &data["ablation"];
    let label = serde_json::from_value::<Site>(a["site"].clone()).map_or_else(|_| "?".into(), |site| site.label());
    println!("{label} knocked out: loss {:.4} → {:.4}", f(&a["whole"]["loss"]), f(&a["ablated"]["loss"]));
    if accuracy {
        println!("accuracy {:.1}% → {:.1}%", 100.0 * f(&a["whole"]["accuracy"]), 100.0 * f(&a["ablated"]["accuracy"]));
        for flip in a["flips"].as_array().into_iter().flatten() {
            println!(
                "  {} expected {}: {} → {}",
                flip["prompt"], flip["expected"], flip["answer"], flip["ablated_answer"]
            );
        }
    }
}

fn print_patching(data: &Value, n_head: usize) {
    // The inputs the model reads (a task's prompt and its answer so far), then the pair as typed.
    let input = |tokens: &Value| {
        Value::from(tokens.as_array().into_iter().flatten().filter_map(Value::as_str).collect::<String>())
    };
    println!(
        "clean {} → {}, corrupted {} → {} (typed: {} and {})",
        input(&data["clean"]),
        data["answer"],
        input(&data["corrupted"]),
        data["wrong"],
        data["clean_text"],
        data["corrupted_text"]
    );
    println!(
        "logit difference: clean {:.4}, corrupted {:.4}",
        f(&data["clean_difference"]),
        f(&data["corrupted_difference"])
    );
    println!("share restored by each head's clean output (rows: layers, columns: heads)");
    print_grid(&data["heads"], n_head, |r| format!("L{}", r + 1));
    let t = data["clean"].as_array().map_or(1, Vec::len);
    println!("share restored by the clean stream entering each layer (columns: positions)");
    print_grid(&data["residual"], t, |r| format!("L{}", r + 1));
}
