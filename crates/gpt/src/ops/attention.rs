//! Causal multi-head self-attention in one kernel: scaled scores, the causal mask, softmax,
//! optional dropout on the probabilities, and the weighted sum of values.

use super::dropout::dropout_mask;
use crate::autograd::{Backward, Graph, Var};
use crate::rng::Rng;
use ndarray::{ArrayD, IxDyn};

/// Dot product with eight independent partial sums, so the compiler can vectorise it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `acc += w * x`.
fn axpy(acc: &mut [f32], w: f32, x: &[f32]) {
    acc.iter_mut().zip(x).for_each(|(a, &v)| *a += w * v);
}

/// `x[i..i+n]` and `x[j..j+n]`, which must not overlap, both mutable.
fn disjoint_mut(x: &mut [f32], i: usize, j: usize, n: usize) -> (&mut [f32], &mut [f32]) {
    if i < j {
        let (lo, hi) = x.split_at_mut(j);
        (&mut lo[i..i + n], &mut hi[..n])
    } else {
        let (lo, hi) = x.split_at_mut(i);
        (&mut hi[..n], &mut lo[j..j + n])
    }
}

/// Where the rows of one (batch, head) live inside the fused `qkv` and output buffers.
#[derive(Clone, Copy)]
struct Layout {
    b: usize,
    t: usize,
    c: usize,
    n_head: usize,
}

impl Layout {
    fn hs(&self) -> usize {
        self.c / self.n_head
    }
    /// Offset of head `h`'s query at position `t` of batch `b` in `qkv`; key is `+c`, value `+2c`.
    fn q(&self, b: usize, h: usize, t: usize) -> usize {
        (b * self.t + t) * 3 * self.c + h * self.hs()
    }
    /// Offset of head `h` at position `t` of batch `b` in the (B, T, C) output.
    fn y(&self, b: usize, h: usize, t: usize) -> usize {
        (b * self.t + t) * self.c + h * self.hs()
    }
    /// Offset of the probability row of query `t` in the (B, nh, T, T) probabilities.
    fn p(&self, b: usize, h: usize, t: usize) -> usize {
        ((b * self.n_head + h) * self.t + t) * self.t
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
        let (c, hs) = (l.c, l.hs());
        let scale = 1.0 / (hs as f32).sqrt();
        let x = xv.as_slice().expect("standard layout");
        let mut probs = vec![0.0; b * n_head * t * t];
        let mask = dropout.filter(|(p, _)| *p > 0.0).map(|(p, rng)| dropout_mask(probs.len(), p, rng));
        let mut y = vec![0.0; b * t * c];
        for bi in 0..b {
            for h in 0..n_head {
                for ti in 0..t {
                    let q = &x[l.q(bi, h, ti)..][..hs];
                    let p = &mut probs[l.p(bi, h, ti)..][..=ti];
                    let mut max = f32::NEG_INFINITY;
                    for (si, ps) in p.iter_mut().enumerate() {
                        *ps = dot(q, &x[l.q(bi, h, si) + c..][..hs]) * scale;
                        max = max.max(*ps);
                    }
                    let mut sum = 0.0;
                    p.iter_mut().for_each(|ps| {
                        *ps = (*ps - max).exp();
                        sum += *ps;
                    });
                    let out = &mut y[l.y(bi, h, ti)..][..hs];
                    for (si, ps) in p.iter_mut().enumerate() {
                        *ps /= sum;
                        let w = mask.as_ref().map_or(*ps, |m| *ps * m[l.p(bi, h, ti) + si]);
                        axpy(out, w, &x[l.q(bi, h, si) + 2 * c..][..hs]);
                    }
                }
            }
        }
        if let Some(buf) = capture {
            buf.extend_from_slice(&probs);
        }
        let out = ArrayD::from_shape_vec(IxDyn(&[b, t, c]), y).expect("sized above");
        self.push(out, vec![qkv], CausalAttention { layout: l, probs, mask })
    }
}

struct CausalAttention {
    layout: Layout,
    probs: Vec<f32>,
    mask: Option<Vec<f32>>,
}

impl Backward for CausalAttention {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, dout: ArrayD<f32>) -> Vec<Option<ArrayD<f32>>> {
        let l = self.layout;
        let (c, hs) = (l.c, l.hs());
        let scale = 1.0 / (hs as f32).sqrt();
        let x = inputs[0].as_slice().expect("standard layout");
        let dy = dout.as_slice().expect("standard layout");
        let mut dx = vec![0.0; x.len()];
        let mut dp = vec![0.0; l.t];
        for bi in 0..l.b {
            for h in 0..l.n_head {
                for ti in 0..l.t {
                    let row = l.p(bi, h, ti);
                    let p = &self.probs[row..][..=ti];
                    let dyt = &dy[l.y(bi, h, ti)..][..hs];
                    // Through the weighted sum of values: d(prob) and d(value).
                    let mut weighted = 0.0;
                    for si in 0..=ti {
                        let keep = self.mask.as_ref().map_or(1.0, |m| m[row + si]);
                        let v = l.q(bi, h, si) + 2 * c;
                        dp[si] = dot(dyt, &x[v..][..hs]) * keep;
                        axpy(&mut dx[v..][..hs], p[si] * keep, dyt);
                        weighted += p[si] * dp[si];
                    }
                    // Through softmax, then the scaled scores q·k.
                    let q = l.q(bi, h, ti);
                    for si in 0..=ti {
                        let ds = p[si] * (dp[si] - weighted) * scale;
                        let k = l.q(bi, h, si) + c;
                        let (dq, dk) = disjoint_mut(&mut dx, q, k, hs);
                        axpy(dq, ds, &x[k..][..hs]);
                        axpy(dk, ds, &x[q..][..hs]);
                    }
                }
            }
        }
        vec![Some(ArrayD::from_shape_vec(inputs[0].raw_dim(), dx).expect("same size"))]
    }
}
