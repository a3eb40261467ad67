//! Cross-entropy: log-softmax and the negative log-likelihood in one kernel.

use super::rows;
use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;

/// A target the loss skips, as PyTorch's `ignore_index`: a task's prompt and padding.
pub const IGNORE: usize = usize::MAX;

impl Graph<'_> {
    /// The mean of `-log softmax(logits)[target]` over every position whose target is not
    /// [`IGNORE`] (0 when none is counted), as a 0-D array.
    ///
    /// # Shapes
    /// `logits`: (..., V); `targets`: one id below V, or [`IGNORE`], per row of `logits`.
    pub fn cross_entropy(&mut self, logits: Var, targets: &[usize]) -> Var {
        let lv = self.value(logits);
        let v = *lv.shape().last().expect("logits need a vocabulary axis");
        assert_eq!(lv.len(), targets.len() * v, "one target per row of logits");
        let mut probs = self.ws().scratch(lv.len());
        let mut total = 0.0f64;
        let mut counted = 0usize;
        for ((row, p), &t) in
            rows(lv.as_slice().expect("standard layout"), v).zip(probs.chunks_exact_mut(v)).zip(targets)
        {
            if t == IGNORE {
                p.fill(0.0); // no gradient flows from a skipped position
                continue;
            }
            assert!(t < v, "target {t} outside the vocabulary of {v}");
            counted += 1;
            let max = super::max(row);
            p.iter_mut().zip(row).for_each(|(pi, &x)| *pi = super::exp(x - max));
            let sum = super::sum(p);
            let inv = 1.0 / sum;
            p.iter_mut().for_each(|pi| *pi *= inv);
            total += (sum.ln() - (row[t] - max)) as f64;
        }
        let mean = if counted == 0 { 0.0 } else { (total / counted as f64) as f32 };
        let loss = ArrayD::from_elem(vec![], mean);
        self.push(loss, vec![logits], CrossEntropy { probs, targets: targets.to_vec(), counted })
    }
}

struct CrossEntropy {
    probs: Vec<f32>,
    targets: Vec<usize>,
    counted: usize,
}

impl Backward for CrossEntropy {
    /// d loss / d logits = (softmax - onehot(target)) / N over the N counted positions; 0 elsewhere.
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, ws: &Workspace) -> Grads {
        let scale = dout.first().copied().unwrap_or(0.0) / self.counted.max(1) as f32;
        let v = self.probs.len() / self.targets.len();
        let mut d = ws.scratch(self.probs.len());
        d.copy_from_slice(&self.probs);
        for (row, &t) in d.chunks_exact_mut(v).zip(&self.targets) {
            if t == IGNORE {
                continue; // zeros from the forward pass
            }
            row[t] -= 1.0;
            row.iter_mut().for_each(|x| *x *= scale);
        }
        vec![Some(ArrayD::from_shape_vec(inputs[0].raw_dim(), d).expect("same size"))]
    }

    fn into_buffers(self: Box<Self>) -> Vec<Vec<f32>> {
        vec![self.probs]
    }
}
