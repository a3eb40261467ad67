//! `gpt superposition --score FILE`: learned directions scored against true features, both read
//! from a safetensors file (`learned`, rows × d, and `truth`, features × d, float32), as
//! `python/check_truth.py` writes them for SAELens to score too.

use gpt::toy::job::SHOWN;
use gpt::toy::truth::{match_grid, score, FOUND};

/// Scores the file's `learned` rows against its `truth` rows; one JSON object with `json`, with
/// the page's match grid of the first true features (`grid`).
pub fn run(path: &std::path::Path, json: bool) -> Result<(), String> {
    let file = crate::matrix_file::MatrixFile::open(path)?;
    let ((learned, d), (truth, d_truth)) = (file.matrix("learned")?, file.matrix("truth")?);
    if d != d_truth {
        return Err(format!("learned rows have {d} dimensions and true features {d_truth}"));
    }
    let s = score(&learned, &truth, d);
    if json {
        let grid = match_grid(&learned, &truth, &s.matched, d, SHOWN);
        println!("{}", serde_json::json!({ "grid": grid, "scores": s }));
    } else {
        println!(
            "{} learned directions against {} true features in {d} dimensions: MCC {:.4}, {:.1}% found (|cos| ≥ {FOUND}), uniqueness {:.3}",
            learned.len() / d,
            truth.len() / d,
            s.mcc,
            100.0 * s.found,
            s.uniqueness
        );
    }
    Ok(())
}
