//! Addition with NumPy-style broadcasting.

use crate::autograd::{Backward, Grads, Graph, Inputs, Var};
use crate::workspace::Workspace;
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

/// The shape both `a` and `b` broadcast to, NumPy's rule: align the trailing axes; each pair
/// must be equal or contain a 1.
fn broadcast_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
    (0..n)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y || y == 1 => x,
            (1, y) => y,
            (x, y) => panic!("shapes {a:?} and {b:?} do not broadcast ({x} vs {y})"),
        })
        .collect()
}

impl Graph<'_> {
    /// `a + b`, broadcasting either side.
    pub fn add(&mut self, a: Var, b: Var) -> Var {
        let (av, bv) = (self.value(a), self.value(b));
        let shape = broadcast_shape(av.shape(), bv.shape());
        let mut out = self.ws().array(&shape);
        out.assign(&av.broadcast(shape.as_slice()).expect("checked above"));
        out.zip_mut_with(bv, |x, y| *x += y);
        self.push(out, vec![a, b], Add)
    }
}

struct Add;

impl Backward for Add {
    fn backward_only(&self, x: Inputs, _: &ArrayD<f32>, dy: ArrayD<f32>, wants: &[bool], ws: &Workspace) -> Grads {
        let db = wants[1].then(|| sum_to_shape(ws.copy(&dy), x[1].shape()));
        if !wants[0] {
            ws.recycle_array(dy);
            return vec![None, db];
        }
        vec![Some(sum_to_shape(dy, x[0].shape())), db]
    }
}
