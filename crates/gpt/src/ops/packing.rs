//! Packing for the wasm matrix product (`gemm_kernel.rs`): `b` into panels of 4·NV columns
//! that the microkernel reads a row at a time, a transposed `a` into tiles of MR rows, both
//! into buffers kept from call to call.

use super::lanes::Lanes;

/// Depth of one pass: a panel of `b` this deep (16 KiB at 16 columns) stays in the L1 cache
/// while every row of `a` goes by.
pub(super) const KC: usize = 256;

/// A matrix in memory: its first element and the distance, in elements, between rows and columns.
#[derive(Clone, Copy)]
pub(crate) struct Strided<T> {
    pub(crate) ptr: T,
    pub(crate) rows: isize,
    pub(crate) cols: isize,
}

impl<T> Strided<T> {
    pub(crate) fn new(ptr: T, [rows, cols]: [isize; 2]) -> Self {
        Strided { ptr, rows, cols }
    }
}

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

/// Floats in one pass's panels of `b` per row: n rounded up to whole panels of 4·NV columns.
pub(super) fn panel_width<const NV: usize>(n: usize) -> usize {
    n.div_ceil(4 * NV) * 4 * NV
}

/// Rows `pc..pc + kc` of `b` as panels of 4·NV columns, `[panel][row][4·NV]`, zero past column
/// n, into `buffer` (grown to fit). Whole vectors wherever they fit: packing is a fifth of a step
/// if done a value at a time.
///
/// # Safety
/// `b` must address rows `pc..pc + kc` and columns `0..n`.
pub(super) unsafe fn pack_b<L: Lanes, const NV: usize>(
    buffer: &mut Vec<f32>,
    b: Strided<*const f32>,
    pc: usize,
    kc: usize,
    n: usize,
) {
    // SAFETY: forwarded from the caller.
    unsafe { pack_pass::<L, NV>(grown(buffer, kc * panel_width::<NV>(n)), b, pc, kc, n) };
}

/// All of `b` (k×n) packed into `all` (k · panel_width(n) long) ahead of time, for a weight that
/// several products use: each pass of KC rows laid out as [`pack_b`] lays it out, pass after
/// pass, so pass `pc` starts at `pc · panel_width(n)`.
///
/// # Safety
/// `b` must address rows `0..k` and columns `0..n`.
pub(crate) unsafe fn pack_b_whole<L: Lanes, const NV: usize>(
    all: &mut [f32],
    b: Strided<*const f32>,
    k: usize,
    n: usize,
) {
    let width = panel_width::<NV>(n);
    assert_eq!(all.len(), k * width, "room for b packed");
    for pc in (0..k).step_by(KC) {
        let kc = KC.min(k - pc);
        // SAFETY: forwarded from the caller.
        unsafe { pack_pass::<L, NV>(&mut all[pc * width..(pc + kc) * width], b, pc, kc, n) };
    }
}

/// [`pack_b`] into `panels`, exactly one pass long.
///
/// # Safety
/// As [`pack_b`].
unsafe fn pack_pass<L: Lanes, const NV: usize>(
    panels: &mut [f32],
    b: Strided<*const f32>,
    pc: usize,
    kc: usize,
    n: usize,
) {
    let nr = 4 * NV;
    // SAFETY: row pc, column 0 is inside b.
    let first = unsafe { b.ptr.offset(pc as isize * b.rows) };
    if !n.is_multiple_of(nr) {
        // The last panel's padding past column n, zeroed.
        let last = n / nr * kc * nr;
        panels[last..].chunks_exact_mut(nr).for_each(|row| row[n % nr..].fill(0.0));
    }
    if b.cols == 1 {
        // SAFETY: forwarded from the caller.
        unsafe { pack_rows::<L, NV>(panels, b.rows, first, kc, n) };
    } else {
        // SAFETY: forwarded from the caller.
        unsafe { pack_columns::<L, NV>(panels, b, first, kc, n) };
    }
}

/// [`pack_b`] for a `b` whose rows are contiguous (`row` apart), from `first` (row pc): row by
/// row, each dealt out to the panels, so that `b` streams through the cache once; panel by
/// panel, a matrix a few hundred rows deep came through once per panel.
///
/// # Safety
/// As [`pack_b`].
unsafe fn pack_rows<L: Lanes, const NV: usize>(panels: &mut [f32], row: isize, first: *const f32, kc: usize, n: usize) {
    let nr = 4 * NV;
    let whole = n - n % 4;
    for p in 0..kc {
        // SAFETY: row pc + p, columns 0..n are inside b and contiguous.
        let src = unsafe { std::slice::from_raw_parts(first.offset(p as isize * row), n) };
        for j in (0..whole).step_by(4) {
            // SAFETY: columns j..j + 4 ≤ n of the row; the panel row holds nr values from j % nr.
            unsafe { L::load(src[j..].as_ptr()).store(panels[((j / nr) * kc + p) * nr + j % nr..].as_mut_ptr()) };
        }
        for (j, &value) in src.iter().enumerate().skip(whole) {
            panels[((j / nr) * kc + p) * nr + j % nr] = value;
        }
    }
}

/// [`pack_b`] for any other `b`, panel by panel; where columns are contiguous (a weight used
/// transposed) in 4×4 blocks, read down four columns and written across four rows.
///
/// # Safety
/// As [`pack_b`].
unsafe fn pack_columns<L: Lanes, const NV: usize>(
    panels: &mut [f32],
    b: Strided<*const f32>,
    first: *const f32,
    kc: usize,
    n: usize,
) {
    let nr = 4 * NV;
    for (panel, j0) in panels.chunks_exact_mut(kc * nr).zip((0..n).step_by(nr)) {
        let width = nr.min(n - j0);
        // SAFETY: row pc, column j0 is inside b.
        let first = unsafe { first.offset(j0 as isize * b.cols) };
        // Rows before `p0` and columns before `j` go in blocks; the rest a value at a time.
        let (p0, j) = if b.rows == 1 { (kc - kc % 4, width - width % 4) } else { (0, 0) };
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
        for p in 0..kc {
            for jj in if p < p0 { j..width } else { 0..width } {
                // SAFETY: row pc + p, column j0 + jj < n is inside b.
                panel[p * nr + jj] = unsafe { *first.offset(p as isize * b.rows + jj as isize * b.cols) };
            }
        }
    }
}
