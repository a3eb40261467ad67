//! Embedding lookup: rows of a table picked by token id.

use crate::autograd::{Backward, Grads, Graph, Var};
use crate::workspace::Workspace;
use ndarray::{ArrayD, IxDyn};

impl Graph<'_> {
    /// Row `ids[i]` of `table` for every `i`.
    ///
    /// # Shapes
    /// `table`: (V, C); `ids`: `shape.iter().product()` ids below V. Out: (*shape, C).
    pub fn embedding(&mut self, table: Var, ids: &[usize], shape: &[usize]) -> Var {
        let t = self.value(table);
        let &[v, c] = t.shape() else { panic!("embedding table must be 2-D") };
        assert_eq!(ids.len(), shape.iter().product::<usize>(), "ids must fill the shape");
        let rows = t.as_slice().expect("standard layout");
        let mut out = self.ws().scratch(ids.len() * c);
        for (&id, row) in ids.iter().zip(out.chunks_exact_mut(c)) {
            assert!(id < v, "token id {id} outside the vocabulary of {v}");
            row.copy_from_slice(&rows[id * c..(id + 1) * c]);
        }
        let mut out_shape = shape.to_vec();
        out_shape.push(c);
        let out = ArrayD::from_shape_vec(IxDyn(&out_shape), out).expect("sized above");
        self.push(out, vec![table], Embedding { ids: ids.to_vec() })
    }
}

struct Embedding {
    ids: Vec<usize>,
}

impl Backward for Embedding {
    /// A scatter-add: each row of `dout` adds into the table row it was read from.
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, ws: &Workspace) -> Grads {
        let mut dtable = ArrayD::from_shape_vec(inputs[0].raw_dim(), ws.zeros(inputs[0].len())).expect("sized");
        let c = inputs[0].shape()[1];
        let dt = dtable.as_slice_mut().expect("fresh array");
        let d = dout.as_slice().expect("standard layout");
        for (&id, drow) in self.ids.iter().zip(d.chunks_exact(c)) {
            for (acc, g) in dt[id * c..(id + 1) * c].iter_mut().zip(drow) {
                *acc += g;
            }
        }
        ws.recycle_array(dout);
        vec![Some(dtable)]
    }
}
