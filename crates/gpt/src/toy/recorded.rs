//! Activations read from a file, with the true features they were built from: what SAELens's
//! `ActivationGenerator` and `FeatureDictionary` give, so that an autoencoder here and one trained
//! by SAELens learn from the same rows (`python/check_synthetic_sae.py`).

use super::known::{Known, Rows};
use crate::error::{Error, Result};
use crate::words::toy;

/// Training rows, held-out rows and the true features, each rows of `d`.
#[derive(Clone, Debug)]
pub struct Recorded {
    d: usize,
    train: Vec<f32>,
    held_out: Vec<f32>,
    /// The held-out rows' true feature activations (rows × n), if the file has them.
    held_out_firing: Option<Vec<f32>>,
    truth: Vec<f32>,
}

impl Recorded {
    /// Rows of `d` to train on and to score on, the true features (rows of `d`), and the held-out
    /// rows' feature activations if known; what does not fit is said.
    pub fn new(
        d: usize,
        train: Vec<f32>,
        held_out: Vec<f32>,
        held_out_firing: Option<Vec<f32>>,
        truth: Vec<f32>,
    ) -> Result<Recorded> {
        let bad = |problem: String| Err(Error::Data(toy::activations_file(problem)));
        if d == 0 || train.is_empty() || held_out.is_empty() || truth.is_empty() {
            return bad("it needs training rows, held-out rows and true features, each of 1 dimension or more".into());
        }
        if [&train, &held_out, &truth].iter().any(|m| m.len() % d != 0) {
            return bad(format!("every row must have the {d} dimensions of the first"));
        }
        let (n, rows) = (truth.len() / d, held_out.len() / d);
        if held_out_firing.as_ref().is_some_and(|f| f.len() != rows * n) {
            return bad("the held-out firing needs a row of every true feature's activation per held-out row".into());
        }
        Ok(Recorded { d, train, held_out, held_out_firing, truth })
    }

    fn train_rows(&self) -> usize {
        self.train.len() / self.d
    }
}

/// A batch's seeds name training rows, round the file (the trainer draws them at random).
impl Rows for Recorded {
    fn dims(&self) -> usize {
        self.d
    }

    fn rows(&self, seeds: &[usize]) -> Vec<f32> {
        let d = self.d;
        seeds.iter().flat_map(|&seed| self.train[(seed % self.train_rows()) * d..][..d].iter().copied()).collect()
    }

    fn held(&self) -> Vec<&[f32]> {
        vec![&self.train, &self.held_out, &self.truth]
    }

    fn held_mut(&mut self) -> Vec<&mut [f32]> {
        vec![&mut self.train, &mut self.held_out, &mut self.truth]
    }
}

impl Known for Recorded {
    fn truth(&self) -> &[f32] {
        &self.truth
    }

    fn held_out(&self, rows: usize) -> (Vec<f32>, Option<Vec<f32>>) {
        let rows = rows.min(self.held_out.len() / self.d);
        let n = self.truth.len() / self.d;
        let firing = self.held_out_firing.as_ref().map(|f| f[..rows * n].to_vec());
        (self.held_out[..rows * self.d].to_vec(), firing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::HookPoint;
    use crate::sae::Source;
    use crate::work::Batch;
    use crate::workspace::Workspace;

    #[test]
    fn a_batch_reads_its_training_rows_round_the_file_and_a_misfit_is_said() {
        let recorded = Recorded::new(2, vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0], None, vec![1.0, 0.0]).unwrap();
        let batch = Batch { idx: &[1, 2], targets: &[0, 0], b: 2, t: 1 };
        let read = recorded.read(&Workspace::default(), batch, &[HookPoint::ResidPost { layer: 0 }]).unwrap();
        assert_eq!(read, vec![vec![3.0, 4.0, 1.0, 2.0]]);
        assert_eq!(recorded.held_out(10), (vec![5.0, 6.0], None));
        let misfit = Recorded::new(2, vec![1.0; 3], vec![1.0; 2], None, vec![1.0; 2]).unwrap_err().to_string();
        assert!(misfit.contains("every row must have the 2 dimensions"), "{misfit}");
        let firing = Recorded::new(2, vec![1.0; 2], vec![1.0; 2], Some(vec![1.0; 3]), vec![1.0; 2]);
        assert!(firing.unwrap_err().to_string().contains("a row of every true feature's activation"));
    }
}
