//! A block of a matrix: some runs of its rows, some of its columns. A head's own weights are such
//! a block of its layer's fused q|k|v and output projections.

use crate::autograd::{Backward, Grads, Graph, Inputs, Var};
use crate::workspace::Workspace;
use ndarray::ArrayD;
use std::ops::Range;

impl Graph<'_> {
    /// The runs `rows` of `w`'s rows, one after another, each cut to `cols`: (Σ rows, cols). A
    /// vector (n) is read as one column (n, 1) and gives a vector.
    pub fn take(&mut self, w: Var, rows: &[Range<usize>], cols: Range<usize>) -> Var {
        let value = self.value(w);
        let (width, vector) = match value.shape() {
            &[_, width] => (width, false),
            &[_] => (1, true),
            shape => panic!("take reads a matrix or a vector, not {shape:?}"),
        };
        let height = value.len() / width;
        assert!(cols.end <= width && rows.iter().all(|r| r.end <= height), "the block lies inside");
        let taken: usize = rows.iter().map(|r| r.len()).sum();
        let shape = if vector { vec![taken] } else { vec![taken, cols.len()] };
        let mut out = self.ws().array(&shape);
        let (from, to) = (value.as_slice().expect("standard layout"), out.as_slice_mut().expect("fresh"));
        let picked =
            rows.iter().flat_map(|r| r.clone()).map(|row| &from[row * width + cols.start..row * width + cols.end]);
        for (row, dst) in picked.zip(to.chunks_exact_mut(cols.len().max(1))) {
            dst.copy_from_slice(row);
        }
        self.push(out, vec![w], Take { rows: rows.to_vec(), cols, width })
    }
}

struct Take {
    rows: Vec<Range<usize>>,
    cols: Range<usize>,
    width: usize,
}

impl Backward for Take {
    /// The block's gradient put back in place; zeros everywhere else.
    fn backward(&self, x: Inputs, _: &ArrayD<f32>, dy: ArrayD<f32>, ws: &Workspace) -> Grads {
        let mut dx = ArrayD::from_shape_vec(x[0].raw_dim(), ws.zeros(x[0].len())).expect("sized");
        let (to, from) = (dx.as_slice_mut().expect("fresh"), dy.as_slice().expect("standard layout"));
        let (width, cols) = (self.width, &self.cols);
        let rows = self.rows.iter().flat_map(|r| r.clone());
        for (row, src) in rows.zip(from.chunks_exact(cols.len().max(1))) {
            to[row * width + cols.start..row * width + cols.end].copy_from_slice(src);
        }
        ws.recycle_array(dy);
        vec![Some(dx)]
    }
}
