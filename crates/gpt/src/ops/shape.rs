//! Reshape and transpose, and the head split built from them.

use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::{ArrayD, IxDyn};

impl Graph<'_> {
    /// The same elements in a new shape with as many elements.
    pub fn reshape(&mut self, x: Var, shape: &[usize]) -> Var {
        let v = self.value(x);
        assert_eq!(v.len(), shape.iter().product::<usize>(), "reshape must keep the element count");
        let out = v.to_shape(IxDyn(shape)).expect("standard layout").into_owned();
        self.push(out, vec![x], Reshape)
    }

    /// Swaps two axes (the result is laid out contiguously).
    pub fn transpose(&mut self, x: Var, axis1: usize, axis2: usize) -> Var {
        let mut view = self.value(x).view();
        view.swap_axes(axis1, axis2);
        let out = view.as_standard_layout().into_owned();
        self.push(out, vec![x], Transpose(axis1, axis2))
    }

    /// (B, T, C) → (B, nh, T, C/nh): one slice of the channels per head.
    pub fn split_heads(&mut self, x: Var, n_head: usize) -> Var {
        let &[b, t, c] = self.shape(x) else { panic!("split_heads needs (B, T, C)") };
        assert!(c.is_multiple_of(n_head), "channels must divide into heads");
        let x = self.reshape(x, &[b, t, n_head, c / n_head]);
        self.transpose(x, 1, 2)
    }

    /// (B, nh, T, hs) → (B, T, nh·hs): the inverse of [`Graph::split_heads`].
    pub fn merge_heads(&mut self, x: Var) -> Var {
        let &[b, nh, t, hs] = self.shape(x) else { panic!("merge_heads needs (B, nh, T, hs)") };
        let x = self.transpose(x, 1, 2);
        self.reshape(x, &[b, t, nh * hs])
    }
}

struct Reshape;

impl Backward for Reshape {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, _: &Workspace) -> Grads {
        vec![Some(dout.into_shape_with_order(inputs[0].raw_dim()).expect("same count"))]
    }
}

struct Transpose(usize, usize);

impl Backward for Transpose {
    fn backward(&self, _: &[&ArrayD<f32>], _: &ArrayD<f32>, mut dout: ArrayD<f32>, _: &Workspace) -> Grads {
        dout.swap_axes(self.0, self.1);
        vec![Some(dout.as_standard_layout().into_owned())]
    }
}
