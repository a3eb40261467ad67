//! The one place matrices are multiplied: `c = alpha · a b (+ c)`, on strided 2-D views.
//!
//! Natively it calls the `gemm` crate (candle's), which picks AVX2/FMA or AVX-512 kernels at run
//! time; it was 6% faster than `matrixmultiply` on this model's shapes. In wasm it runs our own
//! kernel (`gemm_kernel.rs`), which beats the crate's simd128 kernels in the browser.

use super::causal::Causal;
#[cfg(not(target_arch = "wasm32"))]
use ndarray::s;
use ndarray::{ArrayView2, ArrayViewMut2};

/// `c = alpha · a b`, or `c += alpha · a b` when `accumulate`. Any strides, including the
/// negative-free transposed views `.t()` gives.
pub(crate) fn gemm(alpha: f32, a: &ArrayView2<f32>, b: &ArrayView2<f32>, accumulate: bool, c: &mut ArrayViewMut2<f32>) {
    product(alpha, a, (b, None), accumulate, None, c);
}

/// Floats [`pack_weight`] writes for a `b` of k×n: in wasm, its kernel's panels; natively none,
/// as the `gemm` crate packs its own.
pub(crate) fn packed_len(k: usize, n: usize) -> usize {
    #[cfg(target_arch = "wasm32")]
    return k * super::packing::panel_width::<{ super::gemm_kernel::NV }>(n);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (k, n);
        0
    }
}

/// `b` packed into `out` ([`packed_len`] long) ahead of the products that share it: a weight, in
/// every pass of a step or an evaluation.
pub(crate) fn pack_weight(b: &ArrayView2<f32>, out: &mut [f32]) {
    #[cfg(target_arch = "wasm32")]
    {
        use super::gemm_kernel::NV;
        use super::packing::Strided;
        let (k, n) = b.dim();
        let bv = Strided::new(b.as_ptr(), strides(b.strides()));
        // SAFETY: a live view of exactly this shape.
        unsafe { super::packing::pack_b_whole::<core::arch::wasm32::v128, NV>(out, bv, k, n) };
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (b, out);
}

/// [`gemm`] with `b` packed already by [`pack_weight`], if it was.
pub(crate) fn gemm_packed(
    alpha: f32,
    a: &ArrayView2<f32>,
    b: (&ArrayView2<f32>, Option<&[f32]>),
    accumulate: bool,
    c: &mut ArrayViewMut2<f32>,
) {
    product(alpha, a, b, accumulate, None, c);
}

/// [`gemm`]; in wasm, our kernel also leaves out the terms `causal` names as zero, and takes a
/// packed `b` where one comes with it.
fn product(
    alpha: f32,
    a: &ArrayView2<f32>,
    #[cfg_attr(not(target_arch = "wasm32"), allow(unused_variables))] (b, packed): (&ArrayView2<f32>, Option<&[f32]>),
    accumulate: bool,
    #[cfg_attr(not(target_arch = "wasm32"), allow(unused_variables))] causal: Option<Causal>,
    c: &mut ArrayViewMut2<f32>,
) {
    let (m, k) = a.dim();
    let (k2, n) = b.dim();
    assert_eq!(k, k2, "inner dimensions differ");
    assert_eq!(c.dim(), (m, n), "output shape");
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            c.fill(0.0);
        }
        return;
    }
    let (cs, as_, bs) = (strides(c.strides()), strides(a.strides()), strides(b.strides()));
    #[cfg(target_arch = "wasm32")]
    {
        use super::gemm_kernel::{gemm, Operand, MR, NV};
        use super::packing::Strided;
        let (av, cv) = (Strided::new(a.as_ptr(), as_), Strided::new(c.as_mut_ptr(), cs));
        let bv = match packed {
            Some(all) => {
                assert_eq!(all.len(), k * super::packing::panel_width::<NV>(n), "b packed for another shape");
                Operand::Packed(all)
            }
            None => Operand::Strided(Strided::new(b.as_ptr(), bs)),
        };
        // SAFETY: as below: live views of exactly these shapes, a packed b of this shape, and
        // `c` borrowed mutably.
        unsafe { gemm::<core::arch::wasm32::v128, MR, NV>((m, n, k), alpha, av, bv, cv, accumulate, causal) };
    }
    // SAFETY: the pointers and strides come from live ndarray views of exactly these shapes, so
    // every element gemm touches is in bounds; `c` is borrowed mutably, so nothing aliases it.
    #[cfg(not(target_arch = "wasm32"))]
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            cs[1],
            cs[0],
            accumulate,
            a.as_ptr(),
            as_[1],
            as_[0],
            b.as_ptr(),
            bs[1],
            bs[0],
            1.0,
            alpha,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Rows per block of a causal product natively: few enough to skip most of the zero triangle,
/// enough to keep the `gemm` crate's kernels busy.
#[cfg(not(target_arch = "wasm32"))]
const CAUSAL_ROWS: usize = 12;

/// `c = alpha · a b` where `causal` says which terms are zero, leaving them out: about 40% of
/// the work at 64 positions. Only exactly-zero terms are skipped. Our wasm kernel skips them tile
/// by tile; the `gemm` crate runs blocks of rows that leave them out.
pub(crate) fn gemm_causal(
    alpha: f32,
    a: &ArrayView2<f32>,
    b: &ArrayView2<f32>,
    causal: Causal,
    c: &mut ArrayViewMut2<f32>,
) {
    #[cfg(target_arch = "wasm32")]
    product(alpha, a, (b, None), false, Some(causal), c);
    #[cfg(not(target_arch = "wasm32"))]
    for i0 in (0..a.nrows()).step_by(CAUSAL_ROWS) {
        let i1 = (i0 + CAUSAL_ROWS).min(a.nrows());
        let (n, k) = (i1.min(b.ncols()), a.ncols());
        match causal {
            Causal::LowerC => {
                gemm(alpha, &a.slice(s![i0..i1, ..]), &b.slice(s![.., ..n]), false, &mut c.slice_mut(s![i0..i1, ..n]))
            }
            Causal::LowerA => {
                let k = i1.min(k);
                gemm(alpha, &a.slice(s![i0..i1, ..k]), &b.slice(s![..k, ..]), false, &mut c.slice_mut(s![i0..i1, ..]));
            }
            Causal::UpperA => {
                let k0 = i0.min(k);
                gemm(
                    alpha,
                    &a.slice(s![i0..i1, k0..]),
                    &b.slice(s![k0.., ..]),
                    false,
                    &mut c.slice_mut(s![i0..i1, ..]),
                );
            }
        }
    }
}

/// `c = alpha · a b` for a product known to be symmetric (`a = bᵀ`, or a symmetric matrix
/// squared), square `c` in standard layout. In wasm our kernel computes its lower triangle only
/// and it is mirrored (Newton–Schulz steps 7% faster); natively the `gemm` crate's full product
/// beats its blocks of rows (twice as fast on nano-cpu's matrices).
pub(crate) fn gemm_symmetric(alpha: f32, a: &ArrayView2<f32>, b: &ArrayView2<f32>, c: &mut ArrayViewMut2<f32>) {
    #[cfg(target_arch = "wasm32")]
    {
        product(alpha, a, (b, None), false, Some(Causal::LowerC), c);
        for i in 0..c.nrows() {
            for j in 0..i {
                c[[j, i]] = c[[i, j]];
            }
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    gemm(alpha, a, b, false, c);
}

fn strides(s: &[isize]) -> [isize; 2] {
    [s[0], s[1]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use ndarray::Array2;

    #[test]
    fn causal_products_equal_the_full_ones() {
        let mut rng = Rng::new(3);
        let mut random = |r: usize, c: usize| Array2::from_shape_fn((r, c), |_| rng.normal());
        // 29 positions: blocks of 12, 12 and a ragged 5.
        let (t, hs) = (29, 5);
        let (lower, upper) = (random(t, t), random(t, t));
        let (lower, upper) = (
            Array2::from_shape_fn((t, t), |(i, j)| if j <= i { lower[[i, j]] } else { 0.0 }),
            Array2::from_shape_fn((t, t), |(i, j)| if j >= i { upper[[i, j]] } else { 0.0 }),
        );
        let (q, v) = (random(t, hs), random(t, hs));
        let full = |a: &ArrayView2<f32>, b: &ArrayView2<f32>| {
            let mut c = Array2::zeros((a.nrows(), b.ncols()));
            gemm(0.5, a, b, false, &mut c.view_mut());
            c
        };
        let close = |got: f32, want: f32| (got - want).abs() <= 1e-5 * (1.0 + want.abs());

        let mut scores = Array2::from_elem((t, t), f32::NAN);
        gemm_causal(0.5, &q.view(), &v.t(), Causal::LowerC, &mut scores.view_mut());
        let want = full(&q.view(), &v.t());
        assert!((0..t).all(|i| (0..=i).all(|j| close(scores[[i, j]], want[[i, j]]))));

        for (a, causal) in [(lower.view(), Causal::LowerA), (upper.view(), Causal::UpperA)] {
            let mut got = Array2::from_elem((t, hs), f32::NAN);
            gemm_causal(0.5, &a, &v.view(), causal, &mut got.view_mut());
            assert!(got.iter().zip(&full(&a, &v.view())).all(|(&g, &w)| close(g, w)));
        }
    }
}
