//! Addition and multiplication with NumPy-style broadcasting.

use super::standard;
use crate::autograd::{Backward, Graph, Var};
use ndarray::{ArrayD, Axis};

/// Sums `g` down to `shape`, undoing a broadcast: extra leading axes and axes of length 1.
pub(crate) fn sum_to_shape(mut g: ArrayD<f32>, shape: &[usize]) -> ArrayD<f32> {
    while g.ndim() > shape.len() {
        g = g.sum_axis(Axis(0));
    }
    for (axis, &n) in shape.iter().enumerate() {
        if n == 1 && g.shape()[axis] != 1 {
            g = g.sum_axis(Axis(axis)).insert_axis(Axis(axis));
        }
    }
    g
}

impl Graph<'_> {
    /// `a + b`, broadcasting either side.
    pub fn add(&mut self, a: Var, b: Var) -> Var {
        let out = standard(self.value(a) + self.value(b));
        self.push(out, vec![a, b], Add)
    }

    /// `a * b` elementwise, broadcasting either side.
    pub fn mul(&mut self, a: Var, b: Var) -> Var {
        let out = standard(self.value(a) * self.value(b));
        self.push(out, vec![a, b], Mul)
    }
}

struct Add;

impl Backward for Add {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>) -> Vec<Option<ArrayD<f32>>> {
        let da = sum_to_shape(dout.clone(), inputs[0].shape());
        let db = sum_to_shape(dout, inputs[1].shape());
        vec![Some(da), Some(db)]
    }
}

struct Mul;

impl Backward for Mul {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>) -> Vec<Option<ArrayD<f32>>> {
        let (a, b) = (inputs[0], inputs[1]);
        let da = sum_to_shape(&dout * b, a.shape());
        let db = sum_to_shape(&dout * a, b.shape());
        vec![Some(da), Some(db)]
    }
}
