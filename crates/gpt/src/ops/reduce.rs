//! Reductions to a scalar.

use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;

impl Graph<'_> {
    /// The sum of every element, as a 0-D array.
    pub fn sum(&mut self, x: Var) -> Var {
        let out = ArrayD::from_elem(vec![], self.value(x).sum());
        self.push(out, vec![x], Reduce { scale: 1.0 })
    }

    /// The mean of every element, as a 0-D array.
    pub fn mean(&mut self, x: Var) -> Var {
        let n = self.value(x).len() as f32;
        let out = ArrayD::from_elem(vec![], self.value(x).sum() / n);
        self.push(out, vec![x], Reduce { scale: 1.0 / n })
    }
}

/// Sum times `scale`: each input element's gradient is `scale` times the output's.
struct Reduce {
    scale: f32,
}

impl Backward for Reduce {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, _: &Workspace) -> Grads {
        let g = dout.first().copied().unwrap_or(0.0) * self.scale;
        vec![Some(ArrayD::from_elem(inputs[0].raw_dim(), g))]
    }
}
