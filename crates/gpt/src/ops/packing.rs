//! Packing for the wasm matrix product (`gemm_kernel.rs`): `b` into panels of 4·NV columns
//! that the microkernel reads a row at a time, a transposed `a` into tiles of MR rows, both
//! into buffers kept from call to call.

use super::gemm_kernel::Strided;
use super::lanes::Lanes;

/// Where rows `i0..i0 + MR` of `a` start at column `pc`; rows past the end repeat the last one
/// (their results are never stored).
///
/// # Safety
/// Row min(i0 + r, m - 1), column pc must be inside `a`.
pub(super) unsafe fn tile_rows<const MR: usize>(
    a: Strided<*const f32>,
    i0: usize,
    pc: usize,
    m: usize,
) -> [*const f32; MR] {
    // SAFETY: guaranteed by the caller.
    std::array::from_fn(|r| unsafe { a.ptr.offset((i0 + r).min(m - 1) as isize * a.rows + pc as isize * a.cols) })
}

/// The first `len` values of `buffer`, grown if need be but never shrunk: products of several
/// sizes take turns, and each shrinking would cost the next larger one a zero-fill.
fn grown(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

/// Columns `pc..pc + kc` of `a` as tiles of MR rows, `[tile][column][MR]`.
///
/// # Safety
/// `a` must address rows `0..m` and columns `pc..pc + kc`.
pub(super) unsafe fn pack_a<const MR: usize>(
    tiles: &mut Vec<f32>,
    a: Strided<*const f32>,
    pc: usize,
    kc: usize,
    m: usize,
) {
    for (t, tile) in grown(tiles, m.div_ceil(MR) * MR * kc).chunks_exact_mut(MR * kc).enumerate() {
        // SAFETY: forwarded from the caller.
        let rows = unsafe { tile_rows::<MR>(a, t * MR, pc, m) };
        for (p, step) in tile.chunks_exact_mut(MR).enumerate() {
            for (value, row) in step.iter_mut().zip(&rows) {
                // SAFETY: column pc + p < pc + kc of each row is inside a.
                *value = unsafe { *row.offset(p as isize * a.cols) };
            }
        }
    }
}

/// Rows `pc..pc + kc` of `b` as panels of 4·NV columns, `[panel][row][4·NV]`, zero past column
/// n. Whole vectors wherever they fit: packing is a fifth of a step if done a value at a time.
///
/// # Safety
/// `b` must address rows `pc..pc + kc` and columns `0..n`.
pub(super) unsafe fn pack_b<L: Lanes, const NV: usize>(
    panels: &mut Vec<f32>,
    b: Strided<*const f32>,
    pc: usize,
    kc: usize,
    n: usize,
) {
    let nr = 4 * NV;
    // Every value is written below, the padding past column n with zeros.
    for (panel, j0) in grown(panels, n.div_ceil(nr) * kc * nr).chunks_exact_mut(kc * nr).zip((0..n).step_by(nr)) {
        let width = nr.min(n - j0);
        if width < nr {
            panel.chunks_exact_mut(nr).for_each(|row| row[width..].fill(0.0));
        }
        // SAFETY: row pc, column j0 is inside b.
        let first = unsafe { b.ptr.offset(pc as isize * b.rows + j0 as isize * b.cols) };
        // The values still to copy: rows from `p0`, and in rows before it the columns from `j`.
        let (mut p0, mut j) = (0, width);
        if b.cols == 1 {
            // Rows contiguous: each row of the panel is up to NV vectors.
            (p0, j) = (kc, width - width % 4);
            for (p, out) in panel.chunks_exact_mut(nr).enumerate() {
                for v in 0..j / 4 {
                    // SAFETY: the row's columns j0 + 4v..+4 < n are inside b; out holds nr values.
                    unsafe { L::load(first.offset(p as isize * b.rows).add(4 * v)).store(out[4 * v..].as_mut_ptr()) };
                }
            }
        } else if b.rows == 1 {
            // Columns contiguous (a weight used transposed): 4×4 blocks, read down four
            // columns and written across four rows.
            (p0, j) = (kc - kc % 4, width - width % 4);
            for jj in (0..j).step_by(4) {
                for p in (0..p0).step_by(4) {
                    // SAFETY: columns j0 + jj..+4 < n, rows pc + p..+4 ≤ pc + kc are inside b.
                    let columns: [L; 4] =
                        std::array::from_fn(|q| unsafe { L::load(first.offset((jj + q) as isize * b.cols).add(p)) });
                    for (q, row) in L::transpose4(columns).into_iter().enumerate() {
                        // SAFETY: row p + q < kc, columns jj..jj + 4 ≤ nr of the panel.
                        unsafe { row.store(panel[(p + q) * nr + jj..].as_mut_ptr()) };
                    }
                }
            }
        }
        // What is left, a value at a time: the edge columns of the rows done, then whole rows.
        for p in 0..kc {
            let columns = if p < p0 { j..width } else { 0..width };
            for jj in columns {
                // SAFETY: row pc + p, column j0 + jj < n is inside b.
                panel[p * nr + jj] = unsafe { *first.offset(p as isize * b.rows + jj as isize * b.cols) };
            }
        }
    }
}
