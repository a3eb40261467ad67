//! Floors that keep an optimiser's moments out of the subnormal floats.

/// Below this a first moment (Adam's `m`, Muon's momentum) is kept as 0. A weight whose gradient
/// stays 0 (a dead ReLU unit, a token the text lacks) has its moments shrink by β each step, into
/// the subnormal floats that many CPUs handle a hundred times slower; at 2⁻¹⁰⁰ the update it would
/// make is far below any weight's last bit.
pub(crate) const MOMENT_FLOOR: f32 = 7.888_609e-31;
/// Below this Adam's second moment `v` is kept as 0: its root, 2⁻⁶⁰, is lost in ε = 1e-8 even
/// after the bias correction, so the update is the same bit for bit.
pub(crate) const SQUARE_FLOOR: f32 = 7.523_164e-37;

/// `x`, or 0 when it is smaller than `floor` in size (a NaN stays, so divergence is still seen).
#[inline(always)]
pub(crate) fn floored(x: f32, floor: f32) -> f32 {
    if x.abs() < floor {
        0.0
    } else {
        x
    }
}
