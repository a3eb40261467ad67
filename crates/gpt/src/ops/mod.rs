//! The differentiable ops, one family per file, each op's backward written beside its forward.
//! Each adds a method to [`Graph`](crate::autograd::Graph).

pub mod activation;
pub mod attention;
pub mod cross_entropy;
pub mod dropout;
pub mod elementwise;
pub mod embedding;
pub mod matmul;
pub mod norm;
pub mod reduce;
pub mod shape;

pub use activation::Activation;
pub use norm::NormKind;

/// Splits a standard-layout slice into `rows` rows of equal length.
pub(crate) fn rows(x: &[f32], width: usize) -> std::slice::ChunksExact<'_, f32> {
    x.chunks_exact(width)
}
