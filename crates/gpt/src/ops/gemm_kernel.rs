//! The matrix product wasm runs: a register-tiled microkernel of 4-lane vectors that reads `b`
//! packed into column panels, and `a` where it lies (rows contiguous) or packed into row tiles.
//!
//! Its tile, 2 rows × 16 columns of accumulators, fits wasm's sixteen vector registers with a
//! spare for plain SIMD128's product, and divides the models' widths (multiples of 16): a 3 × 12
//! tile for relaxed SIMD's fused multiply-add left two thirds of the last panel of each 64-wide
//! product idle, and ran the LLC's chains 5% slower. `b` is always packed: a panel read in place,
//! a row of `b` apart, ran 9-16% slower in training steps than packing it. Each value of `a` is
//! broadcast by one load wherever it lies, so `a` is packed only when it is transposed: its
//! columns then lie a row of activations apart, and loads that far apart contend for a few cache
//! sets. The kernel is written over [`Lanes`], so natively it runs on plain arrays and a test
//! holds it equal to the textbook triple loop.

use super::causal::Causal;
use super::lanes::Lanes;
use super::packing::{pack_a, pack_b, panel_width, tile_rows, Strided, KC};
use std::cell::RefCell;

/// Rows and 4-lane column vectors of the register tile.
pub(crate) const MR: usize = 2;
pub(crate) const NV: usize = 4;

/// Rows of `a` per block: the panels of `b` all go by one block before the next, so the block
/// (192 KiB at full depth) stays in the L2 cache. A training shard's 192 rows are one block; an
/// evaluation batch of 768 rows streamed from memory for every panel without it.
const MC: usize = 192;

thread_local! {
    /// The packed panels of `b` and tiles of `a`, kept from call to call.
    static PANELS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    static A_TILES: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// The `b` of a product: a matrix the kernel packs pass by pass, or one packed whole already
/// ([`pack_b_whole`](super::packing::pack_b_whole)), a weight that several products share.
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    Strided(Strided<*const f32>),
    Packed(&'a [f32]),
}

/// `c = alpha · a b`, or `c += alpha · a b` when `accumulate`; `a` is m×k, `b` k×n, `c` m×n.
/// With `causal`, the terms it names as zero are left out (`b` is packed once all the same).
///
/// # Safety
/// Each view must address every element of its shape in memory valid for the call, a packed
/// `b` must be a k×n matrix as `pack_b_whole` packs it, and `c` must not overlap `a` or `b`.
pub(crate) unsafe fn gemm<L: Lanes, const MR: usize, const NV: usize>(
    (m, n, k): (usize, usize, usize),
    alpha: f32,
    a: Strided<*const f32>,
    b: Operand,
    c: Strided<*mut f32>,
    accumulate: bool,
    causal: Option<Causal>,
) {
    let nr = 4 * NV;
    let a_in_place = a.cols == 1;
    PANELS.with_borrow_mut(|buffer| {
        A_TILES.with_borrow_mut(|a_tiles| {
            for pc in (0..k).step_by(KC) {
                let kc = KC.min(k - pc);
                let panels: &[f32] = match b {
                    Operand::Packed(all) => &all[pc * panel_width::<NV>(n)..],
                    Operand::Strided(b) => {
                        // SAFETY: forwarded from the caller.
                        unsafe { pack_b::<L, NV>(buffer, b, pc, kc, n) };
                        buffer
                    }
                };
                if !a_in_place {
                    // SAFETY: forwarded from the caller.
                    unsafe { pack_a::<MR>(a_tiles, a, pc, kc, m) };
                }
                for (i_block, j0) in (0..m).step_by(MC).flat_map(|i| (0..n).step_by(nr).map(move |j| (i, j))) {
                    let b_panel = panels[j0 * kc..].as_ptr();
                    for i0 in (i_block..m.min(i_block + MC)).step_by(MR) {
                        if matches!(causal, Some(Causal::LowerC)) && j0 >= i0 + MR {
                            continue; // every column of the tile is past every row
                        }
                        // The steps of this pass the tile's rows need: a causal `a`'s zeros
                        // are skipped (and none at all still stores the zero product).
                        let need = match causal {
                            Some(Causal::LowerA) => 0..i0 + MR,
                            Some(Causal::UpperA) => i0..k,
                            _ => 0..k,
                        };
                        let (from, to) = (need.start.clamp(pc, pc + kc) - pc, need.end.clamp(pc, pc + kc) - pc);
                        let (rows, a_step) = if a_in_place {
                            // SAFETY: forwarded from the caller.
                            (unsafe { tile_rows::<MR>(a, i0, pc, m) }, a.cols)
                        } else {
                            let tile = a_tiles[i0 * kc..].as_ptr();
                            // SAFETY: the tile holds kc steps of MR values.
                            (std::array::from_fn(|r| unsafe { tile.add(r) }), MR as isize)
                        };
                        // SAFETY: steps from..to < kc of the panel and of each row of a are inside
                        // them.
                        let tile = unsafe {
                            let rows = rows.map(|row| row.offset(from as isize * a_step));
                            microkernel::<L, MR, NV>(to - from, rows, a_step, b_panel.add(from * nr))
                        };
                        let to = TileOut { c, at: (i0, j0), left: (m - i0, n - j0), alpha, add: accumulate || pc > 0 };
                        // SAFETY: the tile's rows i0.. and columns j0.. that exist are inside c.
                        unsafe { store_tile(tile, to) };
                    }
                }
            }
        })
    });
}

/// One MR × 4·NV tile: rows of `a` from `rows` (`a_step` apart along k) times `kc` rows of a
/// packed panel of `b` from `b_panel`.
///
/// # Safety
/// Every `rows[r] + p·a_step`, for p < kc, and the kc·4·NV values from `b_panel` must be
/// readable.
#[inline(always)]
unsafe fn microkernel<L: Lanes, const MR: usize, const NV: usize>(
    kc: usize,
    mut rows: [*const f32; MR],
    a_step: isize,
    mut b_panel: *const f32,
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
            b_panel = b_panel.add(4 * NV);
        }
    }
    acc
}

/// Where a tile goes: `alpha ·` its first `m_left` rows and `n_left` columns (`left`) are written,
/// or added when `add`, at `(i0, j0)` (`at`) of `c`.
#[derive(Clone, Copy)]
struct TileOut {
    c: Strided<*mut f32>,
    at: (usize, usize),
    left: (usize, usize),
    alpha: f32,
    add: bool,
}

/// Stores a tile where [`TileOut`] says. Whole tiles of contiguous rows, nearly all of them, are stored here, inline; the rest by
/// [`store_edge`], a call away so its code does not crowd the kernel's registers.
///
/// # Safety
/// Those elements of `c` must be writable.
#[inline(always)]
unsafe fn store_tile<L: Lanes, const MR: usize, const NV: usize>(tile: [[L; NV]; MR], to: TileOut) {
    let TileOut { c, at: (i0, j0), left: (m_left, n_left), alpha, add } = to;
    if c.cols != 1 || m_left < MR || n_left < 4 * NV {
        // SAFETY: forwarded from the caller.
        return unsafe { store_edge(tile, to) };
    }
    let scale = L::splat(alpha);
    for (r, row) in tile.iter().enumerate() {
        // SAFETY: row i0 + r, columns j0..j0 + 4·NV are inside c and contiguous.
        let out = unsafe { c.ptr.offset((i0 + r) as isize * c.rows + j0 as isize) };
        for (v, &value) in row.iter().enumerate() {
            // SAFETY: as above.
            unsafe {
                let p = out.add(4 * v);
                let value = value.mul(scale);
                L::store(if add { L::load(p).add(value) } else { value }, p);
            }
        }
    }
}

/// [`store_tile`] for a tile at the edge of `c`, or any tile of a `c` with strided rows: a value
/// at a time.
///
/// # Safety
/// As [`store_tile`].
#[inline(never)]
unsafe fn store_edge<L: Lanes, const MR: usize, const NV: usize>(tile: [[L; NV]; MR], to: TileOut) {
    let TileOut { c, at: (i0, j0), left: (m_left, n_left), alpha, add } = to;
    let scale = L::splat(alpha);
    for (r, row) in tile.iter().enumerate().take(m_left) {
        // SAFETY: row i0 + r, column j0 is inside c.
        let out = unsafe { c.ptr.offset((i0 + r) as isize * c.rows + j0 as isize * c.cols) };
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
mod tests;
