//! Causal multi-head self-attention kernels.
//!
//! - [`Graph::causal_attention`]: training and evaluation, in one op: scaled scores, the causal
//!   mask, softmax, optional dropout on the probabilities, and the weighted sum of values. Each
//!   (batch, head) is a handful of small matrix products over strided views of the fused `qkv`.
//! - [`Graph::frozen_attention`]: the same with each head's pattern given (circuit tracing's frozen
//!   attention), so only the values are read.
//! - [`attend_cached`]: generation, one new query against the cached keys and values of the
//!   positions before it (`model/kv_cache.rs`). Any change to how attention scores or mixes
//!   (scaling, masking, positional terms) belongs in both; the layer that calls them is
//!   `model/attention.rs`.

use super::causal::Causal;
use super::dropout::dropout_mask;
use super::gemm::gemm_causal;
use crate::autograd::{Backward, Grads, Graph, Var};
use crate::rng::Rng;
use crate::workspace::Workspace;
use ndarray::{ArrayD, ArrayView2, ArrayViewMut2, IxDyn, ShapeBuilder};

/// Where one (batch, head) lives inside the fused `qkv`, output and probability buffers.
#[derive(Clone, Copy)]
struct Layout {
    b: usize,
    t: usize,
    c: usize,
    n_head: usize,
}

/// Which of q, k, v.
#[derive(Clone, Copy)]
enum Part {
    Q = 0,
    K = 1,
    V = 2,
}

impl Layout {
    fn hs(&self) -> usize {
        self.c / self.n_head
    }

    /// The offset and row stride of part `p` of head `h` in batch `b` of the (B, T, 3C) buffer.
    fn qkv(&self, b: usize, h: usize, p: Part) -> (usize, usize) {
        (b * self.t * 3 * self.c + p as usize * self.c + h * self.hs(), 3 * self.c)
    }

    /// The offset and row stride of head `h` in batch `b` of the (B, T, C) output.
    fn y(&self, b: usize, h: usize) -> (usize, usize) {
        (b * self.t * self.c + h * self.hs(), self.c)
    }

    /// The offset of the (T, T) probabilities of head `h` in batch `b`.
    fn p(&self, b: usize, h: usize) -> usize {
        (b * self.n_head + h) * self.t * self.t
    }

    /// A (T, hs) view starting at `offset` with rows `stride` apart.
    fn view<'a>(&self, x: &'a [f32], (offset, stride): (usize, usize)) -> ArrayView2<'a, f32> {
        ArrayView2::from_shape((self.t, self.hs()).strides((stride, 1)), &x[offset..]).expect("inside the buffer")
    }

    fn view_mut<'a>(&self, x: &'a mut [f32], (offset, stride): (usize, usize)) -> ArrayViewMut2<'a, f32> {
        ArrayViewMut2::from_shape((self.t, self.hs()).strides((stride, 1)), &mut x[offset..])
            .expect("inside the buffer")
    }

    fn square<'a>(&self, x: &'a [f32]) -> ArrayView2<'a, f32> {
        ArrayView2::from_shape((self.t, self.t), &x[..self.t * self.t]).expect("T×T")
    }

    fn square_mut<'a>(&self, x: &'a mut [f32]) -> ArrayViewMut2<'a, f32> {
        ArrayViewMut2::from_shape((self.t, self.t), &mut x[..self.t * self.t]).expect("T×T")
    }
}

/// The probabilities as applied to the values: `p`, or `p` times the dropout mask.
fn applied<'a>(p: &'a [f32], mask: Option<&[f32]>, scratch: &'a mut [f32]) -> &'a [f32] {
    match mask {
        None => p,
        Some(m) => {
            scratch.iter_mut().zip(p).zip(m).for_each(|((s, &p), &m)| *s = p * m);
            scratch
        }
    }
}

impl Graph<'_> {
    /// Causal self-attention over the fused projections `qkv` = q | k | v.
    ///
    /// `dropout` drops attention probabilities during training. If `capture` is given, the
    /// probabilities (before dropout) are appended to it, (B, nh, T, T) in row-major order.
    ///
    /// # Shapes
    /// `qkv`: (B, T, 3C). Out: (B, T, C), heads side by side as nanoGPT's `y.transpose(1, 2)`.
    pub fn causal_attention(
        &mut self,
        qkv: Var,
        n_head: usize,
        dropout: Option<(f32, &mut Rng)>,
        capture: Option<&mut Vec<f32>>,
    ) -> Var {
        let xv = self.value(qkv);
        let &[b, t, c3] = xv.shape() else { panic!("attention needs qkv of shape (B, T, 3C)") };
        assert!(c3.is_multiple_of(3) && (c3 / 3).is_multiple_of(n_head), "3C must split into q, k, v and heads");
        let l = Layout { b, t, c: c3 / 3, n_head };
        let scale = 1.0 / (l.hs() as f32).sqrt();
        let x = xv.as_slice().expect("standard layout");
        let mut probs = self.ws().scratch(b * n_head * t * t);
        let mask = dropout.filter(|(p, _)| *p > 0.0).map(|(p, rng)| dropout_mask(probs.len(), p, rng));
        let mut y = self.ws().scratch(b * t * l.c);
        let mut scratch = vec![0.0; t * t];
        for bi in 0..b {
            for h in 0..n_head {
                let at = l.p(bi, h);
                let p = &mut probs[at..at + t * t];
                let (q, k) = (l.view(x, l.qkv(bi, h, Part::Q)), l.view(x, l.qkv(bi, h, Part::K)));
                gemm_causal(scale, &q, &k.t(), Causal::LowerC, &mut l.square_mut(p)); // (T, T) scores
                for (ti, row) in p.chunks_exact_mut(t).enumerate() {
                    let (seen, future) = row.split_at_mut(ti + 1);
                    future.fill(0.0);
                    super::softmax_in_place(seen);
                }
                let pd = applied(p, mask.as_ref().map(|m| &m[at..at + t * t]), &mut scratch);
                let v = l.view(x, l.qkv(bi, h, Part::V));
                gemm_causal(1.0, &l.square(pd), &v, Causal::LowerA, &mut l.view_mut(&mut y, l.y(bi, h)));
                // (T, hs)
            }
        }
        if let Some(buf) = capture {
            buf.extend_from_slice(&probs);
        }
        let out = ArrayD::from_shape_vec(IxDyn(&[b, t, l.c]), y).expect("sized above");
        self.push(out, vec![qkv], CausalAttention { layout: l, probs, mask })
    }
}

impl Graph<'_> {
    /// Attention with its pattern given rather than computed from the queries and keys: circuit
    /// tracing's frozen attention (Ameisen et al. 2025), each head's output the given probabilities
    /// times its values. The gradient reaches the values only.
    ///
    /// # Shapes
    /// `qkv`: (B, T, 3C); `pattern`: (B, nh, T, T), each row causal (zero past its position), as
    /// [`Graph::causal_attention`] captures it. Out: (B, T, C).
    pub fn frozen_attention(&mut self, qkv: Var, n_head: usize, pattern: &[f32]) -> Var {
        let xv = self.value(qkv);
        let &[b, t, c3] = xv.shape() else { panic!("attention needs qkv of shape (B, T, 3C)") };
        assert_eq!(pattern.len(), b * n_head * t * t, "a pattern of (B, nh, T, T)");
        let l = Layout { b, t, c: c3 / 3, n_head };
        let x = xv.as_slice().expect("standard layout");
        let mut y = self.ws().scratch(b * t * l.c);
        for bi in 0..b {
            for h in 0..n_head {
                let at = l.p(bi, h);
                let v = l.view(x, l.qkv(bi, h, Part::V));
                gemm_causal(1.0, &l.square(&pattern[at..]), &v, Causal::LowerA, &mut l.view_mut(&mut y, l.y(bi, h)));
            }
        }
        let out = ArrayD::from_shape_vec(IxDyn(&[b, t, l.c]), y).expect("sized above");
        self.push(out, vec![qkv], FrozenAttention { layout: l, pattern: pattern.to_vec() })
    }
}

/// y = p v with p given: dv = pᵀ dy, and the queries and keys, which p no longer depends on, get none.
struct FrozenAttention {
    layout: Layout,
    pattern: Vec<f32>,
}

impl Backward for FrozenAttention {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, _: &Workspace) -> Grads {
        let l = self.layout;
        let dy = dout.as_slice().expect("standard layout");
        let mut dx = vec![0.0; inputs[0].len()];
        for bi in 0..l.b {
            for h in 0..l.n_head {
                let p = l.square(&self.pattern[l.p(bi, h)..]);
                gemm_causal(
                    1.0,
                    &p.t(),
                    &l.view(dy, l.y(bi, h)),
                    Causal::UpperA,
                    &mut l.view_mut(&mut dx, l.qkv(bi, h, Part::V)),
                );
            }
        }
        vec![Some(ArrayD::from_shape_vec(inputs[0].raw_dim(), dx).expect("same size"))]
    }
}

struct CausalAttention {
    layout: Layout,
    probs: Vec<f32>,
    mask: Option<Vec<f32>>,
}

impl Backward for CausalAttention {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>, ws: &Workspace) -> Grads {
        let l = self.layout;
        let t = l.t;
        let scale = 1.0 / (l.hs() as f32).sqrt();
        let x = inputs[0].as_slice().expect("standard layout");
        let dy = dout.as_slice().expect("standard layout");
        let mut dx = ws.scratch(x.len()); // every q, k and v slot is written below
        let (mut dp, mut scratch) = (vec![0.0; t * t], vec![0.0; t * t]);
        for bi in 0..l.b {
            for h in 0..l.n_head {
                let at = l.p(bi, h);
                let p = &self.probs[at..at + t * t];
                let mask = self.mask.as_ref().map(|m| &m[at..at + t * t]);
                let dyh = l.view(dy, l.y(bi, h));
                // y = pd v: d(pd) = dy vᵀ and dv = pdᵀ dy.
                let v = l.view(x, l.qkv(bi, h, Part::V));
                gemm_causal(1.0, &dyh, &v.t(), Causal::LowerC, &mut l.square_mut(&mut dp));
                let pd = applied(p, mask, &mut scratch);
                let dv = &mut l.view_mut(&mut dx, l.qkv(bi, h, Part::V));
                gemm_causal(1.0, &l.square(pd).t(), &dyh, Causal::UpperA, dv);
                // Through dropout and softmax: ds = p (dp - Σ p dp), times the score scale.
                for (ti, (row, prow)) in dp.chunks_exact_mut(t).zip(p.chunks_exact(t)).enumerate() {
                    let (row, future) = row.split_at_mut(ti + 1);
                    future.fill(0.0);
                    if let Some(m) = mask {
                        row.iter_mut().zip(&m[ti * t..]).for_each(|(d, m)| *d *= m);
                    }
                    let weighted: f32 = row.iter().zip(prow).map(|(d, p)| d * p).sum();
                    row.iter_mut().zip(prow).for_each(|(d, &p)| *d = p * (*d - weighted) * scale);
                }
                // scores = q kᵀ: dq = ds k and dk = dsᵀ q.
                let (q, k) = (l.view(x, l.qkv(bi, h, Part::Q)), l.view(x, l.qkv(bi, h, Part::K)));
                let ds = l.square(&dp);
                gemm_causal(1.0, &ds, &k, Causal::LowerA, &mut l.view_mut(&mut dx, l.qkv(bi, h, Part::Q)));
                gemm_causal(1.0, &ds.t(), &q, Causal::UpperA, &mut l.view_mut(&mut dx, l.qkv(bi, h, Part::K)));
            }
        }
        ws.recycle_array(dout);
        vec![Some(ArrayD::from_shape_vec(inputs[0].raw_dim(), dx).expect("same size"))]
    }

    fn into_buffers(self: Box<Self>) -> Vec<Vec<f32>> {
        [Some(self.probs), self.mask].into_iter().flatten().collect()
    }
}

/// One query position against `keys` and `values` (positions × C, heads side by side), which
/// already include the query's own position: writes the attention output (C) into `y`, a zeroed
/// row. The generation counterpart of [`Graph::causal_attention`].
pub(crate) fn attend_cached(
    q: &[f32],
    keys: &[f32],
    values: &[f32],
    n_head: usize,
    scores: &mut Vec<f32>,
    y: &mut [f32],
) {
    let c = q.len();
    let hs = c / n_head;
    let scale = 1.0 / (hs as f32).sqrt();
    for h in 0..n_head {
        let head = h * hs..(h + 1) * hs;
        scores.clear();
        scores.extend(
            keys.chunks_exact(c)
                .map(|k| k[head.clone()].iter().zip(&q[head.clone()]).map(|(a, b)| a * b).sum::<f32>() * scale),
        );
        super::softmax_in_place(scores);
        for (weight, v) in scores.iter().zip(values.chunks_exact(c)) {
            y[head.clone()].iter_mut().zip(&v[head.clone()]).for_each(|(y, v)| *y += weight * v);
        }
    }
}
