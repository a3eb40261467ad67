//! A text's tokens split into train and validation, and random batches of windows from them.

use super::Split;
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::words::{settings as words, Words};
use std::ops::Range;

/// How many of `n` tokens train (the first 90%, ⌊9n/10⌋ as nanoGPT); the rest validate.
fn train_len(n: usize) -> usize {
    n / 10 * 9 + n % 10 * 9 / 10
}

/// Why `n` tokens cannot be split into training and validation windows of `block_size`, if they cannot.
pub fn too_short(n: usize, block_size: usize) -> Option<Words> {
    let train = train_len(n);
    let need = block_size.saturating_add(1);
    [("training", train), ("validation", n - train)]
        .into_iter()
        .find(|&(_, len)| len <= block_size)
        .map(|(part, len)| words::text_too_short(part, len, block_size, need, need.saturating_mul(10)))
}

/// Token ids as a text keeps them: two bytes each when every id fits (as nanoGPT's uint16 `.bin`
/// files), which halves a big text's memory; four bytes otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ids {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Ids {
    /// `ids`, made narrow when every one fits.
    pub fn from_wide(ids: Vec<u32>) -> Ids {
        match ids.iter().all(|&id| id <= u16::MAX as u32) {
            true => Ids::Narrow(ids.into_iter().map(|id| id as u16).collect()),
            false => Ids::Wide(ids),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Ids::Narrow(ids) => ids.len(),
            Ids::Wide(ids) => ids.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn split_off(&mut self, at: usize) -> Ids {
        match self {
            Ids::Narrow(ids) => Ids::Narrow(ids.split_off(at)),
            Ids::Wide(ids) => Ids::Wide(ids.split_off(at)),
        }
    }

    /// Appends the ids in `range` to `out`.
    fn read(&self, range: Range<usize>, out: &mut Vec<u32>) {
        match self {
            Ids::Narrow(ids) => out.extend(ids[range].iter().map(|&id| id as u32)),
            Ids::Wide(ids) => out.extend_from_slice(&ids[range]),
        }
    }

    fn for_each(&self, f: impl FnMut(u32)) {
        match self {
            Ids::Narrow(ids) => ids.iter().map(|&id| id as u32).for_each(f),
            Ids::Wide(ids) => ids.iter().copied().for_each(f),
        }
    }
}

/// The first 90% of the tokens for training, the last 10% for validation, as nanoGPT's prepare scripts.
#[derive(Clone, Debug)]
pub struct TextData {
    train: Ids,
    val: Ids,
}

impl TextData {
    /// Splits `ids`; each part must hold at least one window of `block_size + 1` tokens.
    pub fn new(mut ids: Ids, block_size: usize) -> Result<TextData> {
        if let Some(why) = too_short(ids.len(), block_size) {
            return Err(Error::Data(why));
        }
        let val = ids.split_off(train_len(ids.len()));
        Ok(TextData { train: ids, val })
    }

    fn part(&self, split: Split) -> &Ids {
        match split {
            Split::Train => &self.train,
            Split::Val => &self.val,
        }
    }

    /// How many tokens `split` has.
    pub fn len(&self, split: Split) -> usize {
        self.part(split).len()
    }

    /// Appends the ids in `range` of `split` to `out`.
    pub fn read(&self, split: Split, range: Range<usize>, out: &mut Vec<u32>) {
        self.part(split).read(range, out);
    }

    /// Calls `f` with every id of `split`, in order, without a copy of them.
    pub fn for_each_in(&self, split: Split, f: impl FnMut(u32)) {
        self.part(split).for_each(f);
    }

    /// Calls `f` with every id, training then validation.
    pub fn for_each(&self, mut f: impl FnMut(u32)) {
        self.for_each_in(Split::Train, &mut f);
        self.for_each_in(Split::Val, f);
    }

    /// Fills `x` and `y` with `batch` random windows of `block` tokens, `y` shifted by one.
    pub fn batch(&self, split: Split, batch: usize, block: usize, rng: &mut Rng, x: &mut Vec<u32>, y: &mut Vec<u32>) {
        let data = self.part(split);
        x.clear();
        y.clear();
        for _ in 0..batch {
            let start = rng.below(data.len() - block);
            data.read(start..start + block, x);
            data.read(start + 1..start + block + 1, y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_ninety_ten_and_shifts_targets() {
        let d = TextData::new(Ids::from_wide((0..100).collect()), 4).unwrap();
        assert_eq!((d.len(Split::Train), d.len(Split::Val)), (90, 10));
        let (mut x, mut y) = (vec![], vec![]);
        d.batch(Split::Val, 3, 4, &mut Rng::new(1), &mut x, &mut y);
        assert_eq!(x.len(), 12);
        assert!(x.iter().zip(&y).all(|(a, b)| b == &(a + 1) && *a >= 90));
    }

    #[test]
    fn too_short_text_is_a_clear_error() {
        let err = TextData::new(Ids::from_wide((0..50).collect()), 8).unwrap_err().to_string();
        assert!(err.contains("validation part has 5 tokens") && err.contains("at least 9"), "{err}");
        assert!(TextData::new(Ids::Narrow(vec![]), 8).is_err());
    }

    #[test]
    fn ids_are_two_bytes_when_they_fit_and_read_the_same_either_way() {
        let small = Ids::from_wide(vec![0, 7, 65535, 3]);
        assert_eq!(small, Ids::Narrow(vec![0, 7, 65535, 3]));
        let big = Ids::from_wide(vec![0, 7, 65536, 3]);
        assert_eq!(big, Ids::Wide(vec![0, 7, 65536, 3]));
        let (mut a, mut b) = (vec![9], vec![9]);
        small.read(1..3, &mut a);
        big.read(1..3, &mut b);
        assert_eq!((a, b), (vec![9, 7, 65535], vec![9, 7, 65536]));
    }
}
