//! `gpt inspect … llc --over FOLDER`: the learning coefficient at every checkpoint `gpt train
//! --keep-each` kept, as a curve over training, with the turns it takes (`gpt::llc::turning_points`)
//! beside the moments the run marked (an induction head, a circuit, memorised, generalised).

use gpt::llc::{turning_points, Llc, Turn};
use gpt::{LlcRequest, WeightPart};
use std::path::{Path, PathBuf};

/// The checkpoints in `folder`, in order of step (their names, step-NNNNNN.safetensors, sort so).
fn kept(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!("{} holds no checkpoints: keep them with gpt train --keep-each", folder.display()));
    }
    Ok(paths)
}

/// Estimates each part at each kept checkpoint (opened by `open`), and prints the curves, their
/// turns and `marks` (or writes them whole, with `json`).
pub fn run(
    folder: &Path,
    open: &dyn Fn(&Path) -> Result<gpt::Run, String>,
    requests: &[LlcRequest],
    marks: gpt::Milestones,
    json: bool,
) -> Result<(), String> {
    let mut curves: Vec<Vec<(usize, Llc)>> = vec![vec![]; requests.len()];
    for path in kept(folder)? {
        let run = open(&path)?;
        let estimates = run.llcs(requests).map_err(|e| format!("{}: {e}", path.display()))?;
        for (curve, llc) in curves.iter_mut().zip(estimates) {
            curve.push((run.step_count(), llc));
        }
    }
    let turns: Vec<Vec<Turn>> = curves
        .iter()
        .map(|c| turning_points(&c.iter().map(|(s, l)| (*s, l.mean, l.std)).collect::<Vec<_>>()))
        .collect();
    if json {
        let parts: Vec<_> = (requests.iter().zip(&curves).zip(&turns))
            .map(|((r, c), t)| {
                let records: Vec<_> =
                    c.iter().map(|(s, l)| serde_json::json!({ "step": s, "mean": l.mean, "std": l.std })).collect();
                serde_json::json!({ "part": r.part, "curve": records, "turns": t })
            })
            .collect();
        println!("{}", serde_json::json!({ "config": requests[0].config, "parts": parts, "milestones": marks }));
        return Ok(());
    }
    print_marks(&marks);
    for ((request, curve), turns) in requests.iter().zip(&curves).zip(&turns) {
        print_curve(request.part, curve, turns);
    }
    Ok(())
}

fn print_marks(marks: &gpt::Milestones) {
    let at = |step: Option<usize>| step.map_or("not reached".to_string(), |s| format!("step {s}"));
    let induction = marks.induction.map_or("not reached".into(), |o| {
        format!("step {} ({})", o.step, gpt::model::Site::Head { layer: o.layer, head: o.head }.label())
    });
    println!(
        "the run's marks: induction head {induction}; circuit {}; memorised {}; generalised {}",
        at(marks.circuit),
        at(marks.memorised),
        at(marks.generalised)
    );
}

fn print_curve(part: WeightPart, curve: &[(usize, Llc)], turns: &[Turn]) {
    println!("{}:", part.label());
    for (step, llc) in curve {
        println!("  step {step:>6}: {:>8.3} ± {:.3}", llc.mean, llc.std);
    }
    for turn in turns {
        match turn {
            Turn::Peak { step, value } => println!("  turns at step {step}: a peak of {value:.3}"),
            Turn::Trough { step, value } => println!("  turns at step {step}: a trough of {value:.3}"),
        }
    }
    if turns.is_empty() {
        println!("  no turn beyond its noise");
    }
}
