//! Which terms of a product of attention's causal T×T matrices are known zeros, so the matrix
//! product (`gemm.rs`, and in wasm `gemm_kernel.rs`) can skip them.

/// The known zeros a product of attention's causal T×T matrices may skip.
#[derive(Clone, Copy)]
pub(crate) enum Causal {
    /// Only the lower triangle of `c` (column ≤ row) is wanted; entries above it may be left
    /// as they were.
    LowerC,
    /// `a` is zero above its diagonal: row i of the product sums over k ≤ i only.
    LowerA,
    /// `a` is zero below its diagonal: row i sums over k ≥ i only.
    UpperA,
}
