//! Matrix multiplication, batched and with either operand transposed.

use super::gemm::{gemm, gemm_packed, pack_weight, packed_len};
use crate::autograd::{Backward, Grads, Graph, Inputs, Var};
use crate::workspace::Workspace;
use ndarray::{ArrayD, ArrayView2, ArrayViewMut2};

/// How `a` and `b` of one matmul split into 2-D matrices.
#[derive(Clone, Copy)]
struct Plan {
    trans_a: bool,
    trans_b: bool,
    /// Number of 2-D products.
    batch: usize,
    /// `b` is one matrix shared by every product.
    shared_b: bool,
    a_rows: usize,
    a_cols: usize,
    b_rows: usize,
    b_cols: usize,
}

impl Plan {
    fn new(a: &[usize], b: &[usize], trans_a: bool, trans_b: bool) -> Plan {
        assert!(a.len() >= 2 && b.len() >= 2, "matmul needs at least 2-D operands");
        let shared_b = b.len() == 2;
        if !shared_b {
            assert_eq!(a[..a.len() - 2], b[..b.len() - 2], "matmul batch dimensions differ");
        }
        let lead: usize = a[..a.len() - 2].iter().product();
        let (a_rows, a_cols) = (a[a.len() - 2], a[a.len() - 1]);
        // With one shared `b`, every row of every batch goes through one large product.
        let (batch, a_rows) = if shared_b && !trans_a { (1, a_rows * lead) } else { (lead, a_rows) };
        let (b_rows, b_cols) = (b[b.len() - 2], b[b.len() - 1]);
        let p = Plan { trans_a, trans_b, batch, shared_b, a_rows, a_cols, b_rows, b_cols };
        let b_inner = if trans_b { b_cols } else { b_rows };
        assert_eq!(p.inner(), b_inner, "matmul inner dimensions differ");
        p
    }

    fn inner(&self) -> usize {
        if self.trans_a {
            self.a_rows
        } else {
            self.a_cols
        }
    }

    /// Rows of each product.
    fn m(&self) -> usize {
        if self.trans_a {
            self.a_cols
        } else {
            self.a_rows
        }
    }

    /// Columns of each product.
    fn n(&self) -> usize {
        if self.trans_b {
            self.b_rows
        } else {
            self.b_cols
        }
    }

    fn b_index(&self, i: usize) -> usize {
        if self.shared_b {
            0
        } else {
            i
        }
    }
}

/// Matrix `i` of a standard-layout array seen as (batch, rows, cols).
fn mat(x: &ArrayD<f32>, rows: usize, cols: usize, i: usize) -> ArrayView2<'_, f32> {
    let flat = &x.as_slice().expect("standard layout")[i * rows * cols..(i + 1) * rows * cols];
    ArrayView2::from_shape((rows, cols), flat).expect("matrix fits")
}

fn mat_mut(x: &mut ArrayD<f32>, rows: usize, cols: usize, i: usize) -> ArrayViewMut2<'_, f32> {
    let flat = &mut x.as_slice_mut().expect("standard layout")[i * rows * cols..(i + 1) * rows * cols];
    ArrayViewMut2::from_shape((rows, cols), flat).expect("matrix fits")
}

fn transposed_if(m: ArrayView2<'_, f32>, t: bool) -> ArrayView2<'_, f32> {
    if t {
        m.reversed_axes()
    } else {
        m
    }
}

/// `c = a b` where `b` is a parameter, `weight` as it is or `transposed`: packed for the kernel
/// once for all the passes that use it while the weights are pinned.
fn times_weight(
    ws: &Workspace,
    a: &ArrayView2<f32>,
    (weight, transposed): (&ArrayD<f32>, bool),
    b: &ArrayView2<f32>,
    c: &mut ArrayViewMut2<f32>,
) {
    let (k, n) = b.dim();
    let pack = (packed_len(k, n), |out: &mut [f32]| pack_weight(b, out));
    ws.with_packed(weight, transposed, pack, |packed| gemm_packed(1.0, a, (b, packed), false, c));
}

impl Graph<'_> {
    /// `op(a) @ op(b)`, where `op` transposes the last two axes when asked.
    ///
    /// # Shapes
    /// `a`: (..., M, K), or (..., K, M) transposed. `b`: (K, N) or (N, K), one matrix shared by
    /// every batch, or (..., K, N) / (..., N, K) with `a`'s batch dimensions. Out: (..., M, N).
    pub fn matmul(&mut self, a: Var, b: Var, trans_a: bool, trans_b: bool) -> Var {
        let (av, bv) = (self.value(a), self.value(b));
        let p = Plan::new(av.shape(), bv.shape(), trans_a, trans_b);
        let mut shape = av.shape().to_vec();
        let r = shape.len();
        if trans_a {
            shape[r - 2] = av.shape()[r - 1];
        }
        shape[r - 1] = p.n();
        let mut out = self.ws().array(&shape);
        let weight = p.shared_b && self.is_param(b);
        for i in 0..p.batch {
            let a_i = transposed_if(mat(av, p.a_rows, p.a_cols, i), trans_a);
            let b_i = transposed_if(mat(bv, p.b_rows, p.b_cols, p.b_index(i)), trans_b);
            let c_i = &mut mat_mut(&mut out, p.m(), p.n(), i);
            if weight {
                times_weight(self.ws(), &a_i, (bv, trans_b), &b_i, c_i);
            } else {
                gemm(1.0, &a_i, &b_i, false, c_i);
            }
        }
        self.push(out, vec![a, b], MatMul { plan: p, weight })
    }
}

struct MatMul {
    plan: Plan,
    /// `b` is one parameter matrix.
    weight: bool,
}

impl Backward for MatMul {
    fn backward_only(&self, x: Inputs, _: &ArrayD<f32>, dy: ArrayD<f32>, wants: &[bool], ws: &Workspace) -> Grads {
        let p = self.plan;
        let (a, b) = (x[0], x[1]);
        let mut da = wants[0].then(|| ws.array(a.shape()));
        let mut db = wants[1].then(|| ws.array(b.shape()));
        for i in 0..p.batch {
            // out = opA(a) opB(b), so d opA = dout opB^T and d opB = opA^T dout.
            let d = mat(&dy, p.m(), p.n(), i);
            let op_a = transposed_if(mat(a, p.a_rows, p.a_cols, i), p.trans_a);
            let op_b = transposed_if(mat(b, p.b_rows, p.b_cols, p.b_index(i)), p.trans_b);
            if let Some(da) = &mut da {
                let mut da_i = mat_mut(da, p.a_rows, p.a_cols, i);
                if p.trans_a {
                    gemm(1.0, &op_b, &d.t(), false, &mut da_i);
                } else if self.weight {
                    times_weight(ws, &d, (b, !p.trans_b), &op_b.t(), &mut da_i);
                } else {
                    gemm(1.0, &d, &op_b.t(), false, &mut da_i);
                }
            }
            if let Some(db) = &mut db {
                // A shared `b` sums its gradient over the batch.
                let accumulate = p.shared_b && i > 0;
                let mut db_i = mat_mut(db, p.b_rows, p.b_cols, p.b_index(i));
                if p.trans_b {
                    gemm(1.0, &d.t(), &op_a, accumulate, &mut db_i);
                } else {
                    gemm(1.0, &op_a.t(), &d, accumulate, &mut db_i);
                }
            }
        }
        ws.recycle_array(dy);
        vec![da, db]
    }
}
