//! Deterministic evaluation: the loss over every non-overlapping window of a text.

use crate::error::{Error, Result};
use crate::model::GPT;

/// Windows per forward pass; bounds memory while keeping the matrix products large.
const WINDOWS_PER_BATCH: usize = 16;

/// The mean cross-entropy over every non-overlapping `block_size` window of `tokens` (each
/// predicting its next `block_size` tokens), and how many windows there were. Unlike
/// [`Trainer::evaluate`](crate::Trainer::evaluate), it draws nothing at random.
pub fn windows_loss(model: &GPT, tokens: &[u32]) -> Result<(f32, usize)> {
    let t = model.config().block_size;
    let windows = tokens.len().saturating_sub(1) / t;
    if windows == 0 {
        return Err(Error::Data(format!(
            "the text has {} tokens, but one window needs {} (block size + 1)",
            tokens.len(),
            t + 1
        )));
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut total = 0.0f64;
    for first in (0..windows).step_by(WINDOWS_PER_BATCH) {
        let b = WINDOWS_PER_BATCH.min(windows - first);
        x.clear();
        y.clear();
        for w in first..first + b {
            x.extend(tokens[w * t..(w + 1) * t].iter().map(|&i| i as usize));
            y.extend(tokens[w * t + 1..(w + 1) * t + 1].iter().map(|&i| i as usize));
        }
        total += model.loss(&x, &y, b, t)? as f64 * b as f64;
    }
    Ok(((total / windows as f64) as f32, windows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GPTConfig;

    #[test]
    fn averages_every_window_in_batches() {
        let config = GPTConfig { vocab_size: 5, block_size: 3, n_layer: 1, n_head: 1, n_embd: 4, ..Default::default() };
        let model = GPT::new(config, 1).unwrap();
        let tokens: Vec<u32> = (0..100).map(|i| (i * 7 % 5) as u32).collect();
        let (loss, windows) = windows_loss(&model, &tokens).unwrap();
        assert_eq!(windows, 33);
        let one_by_one: f32 = (0..33)
            .map(|w| {
                let ids = |o: usize| (w * 3 + o..w * 3 + o + 3).map(|i| tokens[i] as usize).collect::<Vec<_>>();
                model.loss(&ids(0), &ids(1), 1, 3).unwrap()
            })
            .sum::<f32>()
            / 33.0;
        assert!((loss - one_by_one).abs() < 1e-5, "{loss} vs {one_by_one}");
        assert!(windows_loss(&model, &tokens[..3]).unwrap_err().to_string().contains("needs 4"));
    }
}
