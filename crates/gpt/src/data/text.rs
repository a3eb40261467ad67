//! A text's tokens split into train and validation, and random batches of windows from them.

use super::Split;
use crate::error::{Error, Result};
use crate::rng::Rng;

/// How many of `n` tokens train (the first 90%, ⌊9n/10⌋ as nanoGPT); the rest validate.
fn train_len(n: usize) -> usize {
    n / 10 * 9 + n % 10 * 9 / 10
}

/// Why `n` tokens cannot be split into training and validation windows of `block_size`, if they cannot.
pub fn too_short(n: usize, block_size: usize) -> Option<String> {
    let train = train_len(n);
    [("training", train), ("validation", n - train)].into_iter().find(|&(_, len)| len <= block_size).map(
        |(part, len)| {
            format!(
            "the text is too short: its {part} part has {len} tokens, but block size {block_size} needs at least {} \
             (the last 10% is kept for validation). Use more text (about {} tokens) or a smaller block size.",
            block_size.saturating_add(1),
            block_size.saturating_add(1).saturating_mul(10)
        )
        },
    )
}

/// The first 90% of the tokens for training, the last 10% for validation, as nanoGPT's prepare scripts.
#[derive(Clone, Debug)]
pub struct TextData {
    train: Vec<u32>,
    val: Vec<u32>,
}

impl TextData {
    /// Splits `tokens`; each part must hold at least one window of `block_size + 1` tokens.
    pub fn new(mut tokens: Vec<u32>, block_size: usize) -> Result<TextData> {
        if let Some(why) = too_short(tokens.len(), block_size) {
            return Err(Error::Data(why));
        }
        let val = tokens.split_off(train_len(tokens.len()));
        Ok(TextData { train: tokens, val })
    }

    pub fn split(&self, split: Split) -> &[u32] {
        match split {
            Split::Train => &self.train,
            Split::Val => &self.val,
        }
    }

    /// Fills `x` and `y` with `batch` random windows of `block` tokens, `y` shifted by one.
    pub fn batch(&self, split: Split, batch: usize, block: usize, rng: &mut Rng, x: &mut Vec<u32>, y: &mut Vec<u32>) {
        let data = self.split(split);
        x.clear();
        y.clear();
        for _ in 0..batch {
            let start = rng.below(data.len() - block);
            x.extend_from_slice(&data[start..start + block]);
            y.extend_from_slice(&data[start + 1..start + block + 1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_ninety_ten_and_shifts_targets() {
        let d = TextData::new((0..100).collect(), 4).unwrap();
        assert_eq!((d.split(Split::Train).len(), d.split(Split::Val).len()), (90, 10));
        let (mut x, mut y) = (vec![], vec![]);
        d.batch(Split::Val, 3, 4, &mut Rng::new(1), &mut x, &mut y);
        assert_eq!(x.len(), 12);
        assert!(x.iter().zip(&y).all(|(a, b)| b == &(a + 1) && *a >= 90));
    }

    #[test]
    fn too_short_text_is_a_clear_error() {
        let err = TextData::new((0..50).collect(), 8).unwrap_err().to_string();
        assert!(err.contains("validation part has 5 tokens") && err.contains("at least 9"), "{err}");
        assert!(TextData::new(vec![], 8).is_err());
    }
}
