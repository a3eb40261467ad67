//! The matrix product wasm runs: a register-tiled microkernel of 4-lane vectors that reads `a`
//! where it lies and `b` either where it lies (rows contiguous) or packed into column panels.
//!
//! Its tiles are sized to wasm's sixteen vector registers: 2 rows × 16 columns of accumulators
//! with plain SIMD128 (each multiply-add needs a spare register for the product), 3 × 12 with
//! relaxed SIMD's fused multiply-add (none needed). `a` is never packed: each of its values is
//! broadcast by one load wherever it lies, which also spares the thousand small products of
//! attention a packing pass each. The kernel is written over [`Lanes`], so natively it runs on
//! plain arrays and a test holds it equal to the textbook triple loop.

use super::lanes::Lanes;
use std::cell::RefCell;

/// Rows and 4-lane column vectors of the register tile.
#[cfg(target_feature = "relaxed-simd")]
pub(crate) const MR: usize = 3;
#[cfg(target_feature = "relaxed-simd")]
pub(crate) const NV: usize = 3;
#[cfg(not(target_feature = "relaxed-simd"))]
pub(crate) const MR: usize = 2;
#[cfg(not(target_feature = "relaxed-simd"))]
pub(crate) const NV: usize = 4;

/// Depth of one pass: a panel of `b` this deep (16 KiB at 16 columns) stays in the L1 cache
/// while every row of `a` goes by.
const KC: usize = 256;

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

thread_local! {
    /// The packed panels of `b`, kept from call to call.
    static PANELS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// `c = alpha · a b`, or `c += alpha · a b` when `accumulate`; `a` is m×k, `b` k×n, `c` m×n.
///
/// # Safety
/// Each view must address every element of its shape in memory valid for the call, and `c`
/// must not overlap `a` or `b`.
pub(crate) unsafe fn gemm<L: Lanes, const MR: usize, const NV: usize>(
    (m, n, k): (usize, usize, usize),
    alpha: f32,
    a: Strided<*const f32>,
    b: Strided<*const f32>,
    c: Strided<*mut f32>,
    accumulate: bool,
) {
    let nr = 4 * NV;
    // `b`'s rows serve as they are when they are contiguous and split into whole panels.
    let in_place = b.cols == 1 && n.is_multiple_of(nr);
    PANELS.with_borrow_mut(|panels| {
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            if !in_place {
                // SAFETY: forwarded from the caller.
                unsafe { pack_b(panels, b, pc, kc, n, nr) };
            }
            for j0 in (0..n).step_by(nr) {
                let (b_panel, b_step) = if in_place {
                    // SAFETY: row pc, column j0 is inside b.
                    (unsafe { b.ptr.offset(pc as isize * b.rows + j0 as isize) }, b.rows)
                } else {
                    (panels[j0 * kc..].as_ptr(), nr as isize)
                };
                for i0 in (0..m).step_by(MR) {
                    // Rows past the end read the last row and are not stored.
                    // SAFETY: row min(i0 + r, m - 1), column pc is inside a.
                    let rows: [*const f32; MR] = std::array::from_fn(|r| unsafe {
                        a.ptr.offset((i0 + r).min(m - 1) as isize * a.rows + pc as isize * a.cols)
                    });
                    // SAFETY: the kc rows of the panel and of each row of a are inside them.
                    let tile = unsafe { microkernel::<L, MR, NV>(kc, rows, a.cols, b_panel, b_step) };
                    let add = accumulate || pc > 0;
                    // SAFETY: the tile's rows i0.. and columns j0.. that exist are inside c.
                    unsafe { store_tile(tile, alpha, c, (i0, j0), (m - i0, n - j0), add) };
                }
            }
        }
    });
}

/// Rows `pc..pc + kc` of `b` as panels of `nr` columns, `[panel][row][nr]`, zero past column n.
///
/// # Safety
/// `b` must address rows `pc..pc + kc` and columns `0..n`.
unsafe fn pack_b(panels: &mut Vec<f32>, b: Strided<*const f32>, pc: usize, kc: usize, n: usize, nr: usize) {
    panels.clear();
    panels.resize(n.div_ceil(nr) * kc * nr, 0.0);
    // Column by column: a weight used transposed (`x Wᵀ`) has its columns contiguous.
    for j in 0..n {
        let (panel, jj) = (j / nr, j % nr);
        let out = &mut panels[panel * kc * nr + jj..];
        // SAFETY: column j < n, rows pc.. < pc + kc are inside b.
        let column = unsafe { b.ptr.offset(pc as isize * b.rows + j as isize * b.cols) };
        for p in 0..kc {
            // SAFETY: as above.
            out[p * nr] = unsafe { *column.offset(p as isize * b.rows) };
        }
    }
}

/// One MR × 4·NV tile: rows of `a` from `rows` (`a_step` apart along k) times `kc` rows of `b`
/// from `b_panel` (`b_step` apart).
///
/// # Safety
/// Every `rows[r] + p·a_step` and the 4·NV values at `b_panel + p·b_step`, for p < kc, must be
/// readable.
#[inline(always)]
unsafe fn microkernel<L: Lanes, const MR: usize, const NV: usize>(
    kc: usize,
    mut rows: [*const f32; MR],
    a_step: isize,
    mut b_panel: *const f32,
    b_step: isize,
) -> [[L; NV]; MR] {
    let mut acc = [[L::splat(0.0); NV]; MR];
    for _ in 0..kc {
        // SAFETY: the caller guarantees every read of the kc steps.
        unsafe {
            let b: [L; NV] = std::array::from_fn(|v| L::load(b_panel.add(4 * v)));
            for (acc_row, row) in acc.iter_mut().zip(&mut rows) {
                let a = L::load_splat(*row);
                for (acc, &b) in acc_row.iter_mut().zip(&b) {
                    *acc = L::mul_add(*acc, a, b);
                }
                *row = row.offset(a_step);
            }
            b_panel = b_panel.offset(b_step);
        }
    }
    acc
}

/// Writes (or adds) `alpha ·` the tile's first `m_left` rows and `n_left` columns at `(i0, j0)`.
///
/// # Safety
/// Those elements of `c` must be writable.
unsafe fn store_tile<L: Lanes, const MR: usize, const NV: usize>(
    tile: [[L; NV]; MR],
    alpha: f32,
    c: Strided<*mut f32>,
    (i0, j0): (usize, usize),
    (m_left, n_left): (usize, usize),
    add: bool,
) {
    let scale = L::splat(alpha);
    for (r, row) in tile.iter().enumerate().take(m_left) {
        // SAFETY: row i0 + r, column j0 is inside c.
        let out = unsafe { c.ptr.offset((i0 + r) as isize * c.rows + j0 as isize * c.cols) };
        if c.cols == 1 && n_left >= 4 * NV {
            for (v, &value) in row.iter().enumerate() {
                // SAFETY: 4·NV contiguous columns from j0 are inside c.
                unsafe {
                    let p = out.add(4 * v);
                    let value = value.mul(scale);
                    L::store(if add { L::load(p).add(value) } else { value }, p);
                }
            }
            continue;
        }
        let mut lanes = [[0.0; 4]; NV];
        // SAFETY: `lanes` holds 4·NV f32s.
        row.iter().zip(&mut lanes).for_each(|(value, out)| unsafe { value.mul(scale).store(out.as_mut_ptr()) });
        for (jj, &value) in lanes.iter().flatten().enumerate().take(n_left) {
            // SAFETY: column j0 + jj < n is inside c.
            let slot = unsafe { &mut *out.offset(jj as isize * c.cols) };
            *slot = if add { *slot + value } else { value };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The textbook triple loop, as the reference.
    fn naive(
        (m, n, k): (usize, usize, usize),
        (a, [ars, acs]): (&[f32], [usize; 2]),
        (b, [brs, bcs]): (&[f32], [usize; 2]),
    ) -> Vec<f32> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * ars + p * acs] * b[p * brs + j * bcs]).sum();
            }
        }
        c
    }

    #[test]
    fn equals_the_naive_product_for_any_shape_and_layout() {
        let mut rng = Rng::new(5);
        // Edges of every kind: sizes not multiples of the tile, k past one pass, b in place.
        for (m, n, k) in [(1, 1, 1), (3, 17, 5), (7, 13, 300), (130, 9, 2), (5, 33, 257), (4, 48, 10), (9, 24, 520)] {
            let a: Vec<f32> = (0..m * k).map(|_| rng.normal()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rng.normal()).collect();
            for (a_t, b_t) in [(false, false), (true, false), (false, true), (true, true)] {
                let (ars, acs) = if a_t { (1, m) } else { (k, 1) };
                let (brs, bcs) = if b_t { (1, k) } else { (n, 1) };
                let want = naive((m, n, k), (&a, [ars, acs]), (&b, [brs, bcs]));
                let mut c = vec![1.0; m * n];
                let s = |r: usize, c: usize| [r as isize, c as isize];
                // SAFETY: every view addresses exactly its matrix inside these vectors.
                unsafe {
                    let (av, bv) = (Strided::new(a.as_ptr(), s(ars, acs)), Strided::new(b.as_ptr(), s(brs, bcs)));
                    let cv = Strided::new(c.as_mut_ptr(), s(n, 1));
                    // This build's tile, then the other build's, accumulating.
                    gemm::<[f32; 4], MR, NV>((m, n, k), 0.5, av, bv, cv, false);
                    gemm::<[f32; 4], 3, 3>((m, n, k), 0.5, av, bv, cv, true);
                }
                for (got, want) in c.iter().zip(&want) {
                    assert!(
                        (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{m}×{n}×{k} {a_t} {b_t}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
