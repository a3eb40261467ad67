//! A batch as every floor above hands it round: rows of token ids, and the ids that follow them
//! as targets, [`IGNORE`] where the loss skips a position; drawn from one split of the data.

/// Which part of the data to draw from: training, or validation (a task's held-out problems).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Train,
    Val,
}

/// A target the loss skips (a task's prompt and padding), as PyTorch's `ignore_index`.
pub const IGNORE: u32 = u32::MAX;

/// Target ids as the model reads them, [`IGNORE`] as [`crate::ops::IGNORE`].
pub fn targets(ids: &[u32]) -> Vec<usize> {
    ids.iter().map(|&t| if t == IGNORE { crate::ops::IGNORE } else { t as usize }).collect()
}

/// `b` sequences of `t` token ids, and the ids that follow each (the targets,
/// [`crate::ops::IGNORE`] where the loss skips a position), row after row.
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    pub idx: &'a [usize],
    pub targets: &'a [usize],
    pub b: usize,
    pub t: usize,
}
