//! The one place matrices are multiplied: `c = alpha · a b (+ c)`, on strided 2-D views.
//!
//! Natively it calls the `gemm` crate (candle's), which picks AVX2/FMA or AVX-512 kernels at run
//! time; it was 6% faster than `matrixmultiply` on this model's shapes. In wasm it runs our own
//! kernel (`gemm_kernel.rs`), which beats the crate's simd128 kernels in the browser.

use ndarray::{ArrayView2, ArrayViewMut2};

/// `c = alpha · a b`, or `c += alpha · a b` when `accumulate`. Any strides, including the
/// negative-free transposed views `.t()` gives.
pub(crate) fn gemm(alpha: f32, a: &ArrayView2<f32>, b: &ArrayView2<f32>, accumulate: bool, c: &mut ArrayViewMut2<f32>) {
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
        use super::gemm_kernel::{gemm, Strided, MR, NV};
        let (av, bv, cv) =
            (Strided::new(a.as_ptr(), as_), Strided::new(b.as_ptr(), bs), Strided::new(c.as_mut_ptr(), cs));
        // SAFETY: as below: live views of exactly these shapes, and `c` borrowed mutably.
        unsafe { gemm::<core::arch::wasm32::v128, MR, NV>((m, n, k), alpha, av, bv, cv, accumulate) };
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

fn strides(s: &[isize]) -> [isize; 2] {
    [s[0], s[1]]
}
