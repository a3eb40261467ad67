//! `gpt superposition --score FILE`: learned directions scored against true features, both read
//! from a safetensors file (`learned`, rows × d, and `truth`, features × d, float32), as
//! `python/check_truth.py` writes them for SAELens to score too.

use gpt::toy::truth::{score, FOUND};

/// Scores the file's `learned` rows against its `truth` rows; one JSON object with `json`.
pub fn run(path: &std::path::Path, json: bool) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let tensors = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let matrix = |name: &str| -> Result<(Vec<f32>, usize), String> {
        let t =
            tensors.tensor(name).map_err(|_| format!("{}: no tensor {name:?} (rows × d, float32)", path.display()))?;
        match (t.dtype(), t.shape()) {
            (safetensors::Dtype::F32, &[_, d]) if d > 0 => {
                Ok((t.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(), d))
            }
            (dtype, shape) => Err(format!("{name}: a float32 matrix of rows × d is needed, not {dtype:?} {shape:?}")),
        }
    };
    let ((learned, d), (truth, d_truth)) = (matrix("learned")?, matrix("truth")?);
    if d != d_truth {
        return Err(format!("learned rows have {d} dimensions and true features {d_truth}"));
    }
    let s = score(&learned, &truth, d);
    if json {
        println!("{}", serde_json::to_string(&s).map_err(|e| e.to_string())?);
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
