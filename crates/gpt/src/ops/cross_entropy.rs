//! Cross-entropy: log-softmax and the negative log-likelihood in one kernel.

use super::rows;
use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;

impl Graph<'_> {
    /// The mean over every position of `-log softmax(logits)[target]`, as a 0-D array.
    ///
    /// # Shapes
    /// `logits`: (..., V); `targets`: one id below V per row of `logits`.
    pub fn cross_entropy(&mut self, logits: Var, targets: &[usize]) -> Var {
        let lv = self.value(logits);
        let v = *lv.shape().last().expect("logits need a vocabulary axis");
        assert_eq!(lv.len(), targets.len() * v, "one target per row of logits");
        let mut probs = self.ws().scratch(lv.len());
        let mut total = 0.0f64;
        for ((row, p), &t) in
            rows(lv.as_slice().expect("standard layout"), v).zip(probs.chunks_exact_mut(v)).zip(targets)
        {
            assert!(t < v, "target {t} outside the vocabulary of {v}");
            let max = super::max(row);
            p.iter_mut().zip(row).for_each(|(pi, &x)| *pi = super::exp(x - max));
            let sum = super::sum(p);
            let inv = 1.0 / sum;
            p.iter_mut().for_each(|pi| *pi *= inv);
            total += (sum.ln() - (row[t] - max)) as f64;
        }
        let loss = ArrayD::from_elem(vec![], (total / targets.len() as f64) as f32);
        self.push(loss, vec![logits], CrossEntropy { probs, targets: targets.to_vec() })
    }
}

struct CrossEntropy {
    probs: Vec<f32>,
    targets: Vec<usize>,
}

impl Backward for CrossEntropy {
    /// d loss / d logits = (softmax - onehot(target)) / N.
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, ws: &Workspace) -> Grads {
        let scale = dout.first().copied().unwrap_or(0.0) / self.targets.len() as f32;
        let v = self.probs.len() / self.targets.len();
        let mut d = ws.scratch(self.probs.len());
        d.copy_from_slice(&self.probs);
        for (row, &t) in d.chunks_exact_mut(v).zip(&self.targets) {
            row[t] -= 1.0;
            row.iter_mut().for_each(|x| *x *= scale);
        }
        vec![Some(ArrayD::from_shape_vec(inputs[0].raw_dim(), d).expect("same size"))]
    }

    fn into_buffers(self: Box<Self>) -> Vec<Vec<f32>> {
        vec![self.probs]
    }
}
