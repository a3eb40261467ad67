//! Four f32 lanes: wasm's `v128` (with relaxed SIMD's fused multiply-add where the build has
//! it), or a plain array natively, so the one kernel written over them is tested natively too.

/// Four f32 lanes and the few operations the microkernel and the vector GELU need.
pub(crate) trait Lanes: Copy {
    fn splat(x: f32) -> Self;
    /// Four values from `p`.
    ///
    /// # Safety
    /// `p` must point at four readable f32s.
    unsafe fn load(p: *const f32) -> Self;
    /// `*p` in every lane.
    ///
    /// # Safety
    /// `p` must point at a readable f32.
    unsafe fn load_splat(p: *const f32) -> Self;
    /// Writes the four lanes to `p`.
    ///
    /// # Safety
    /// `p` must point at four writable f32s.
    unsafe fn store(self, p: *mut f32);
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    fn div(self, other: Self) -> Self;
    fn abs(self) -> Self;
    /// `acc + a·b`, fused where the target can.
    fn mul_add(acc: Self, a: Self, b: Self) -> Self;
    /// `acc - a·b`, fused where the target can.
    fn neg_mul_add(acc: Self, a: Self, b: Self) -> Self;
    /// Each lane within `[lo, hi]`; NaN stays NaN.
    fn clamp(self, lo: f32, hi: f32) -> Self;
    /// These lanes, none negative, with the signs of `sign`'s.
    fn with_sign_of(self, sign: Self) -> Self;
    /// These lanes, with 0 where `x`'s lane is below `cut` (a NaN in `x` keeps the lane).
    fn zero_where_below(self, x: Self, cut: f32) -> Self;
    /// 2^k in each lane that holds `k + 1.5·2²³`, k an integer in [-126, 127]: k sits in the
    /// low bits, so integer adds and a shift build 2^k (see `ops::exp`).
    fn pow2_of_shifted(self) -> Self;
    /// The 4×4 matrix whose rows are `rows`, transposed.
    fn transpose4(rows: [Self; 4]) -> [Self; 4];
}

/// Plain arrays: the portable form, for native tests.
impl Lanes for [f32; 4] {
    fn splat(x: f32) -> Self {
        [x; 4]
    }

    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: the caller guarantees four readable f32s.
        unsafe { p.cast::<[f32; 4]>().read_unaligned() }
    }

    unsafe fn load_splat(p: *const f32) -> Self {
        // SAFETY: the caller guarantees a readable f32.
        [unsafe { *p }; 4]
    }

    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the caller guarantees four writable f32s.
        unsafe { p.cast::<[f32; 4]>().write_unaligned(self) }
    }

    fn add(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] + other[i])
    }

    fn sub(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] - other[i])
    }

    fn mul(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] * other[i])
    }

    fn div(self, other: Self) -> Self {
        std::array::from_fn(|i| self[i] / other[i])
    }

    fn abs(self) -> Self {
        self.map(f32::abs)
    }

    fn mul_add(acc: Self, a: Self, b: Self) -> Self {
        std::array::from_fn(|i| acc[i] + a[i] * b[i])
    }

    fn neg_mul_add(acc: Self, a: Self, b: Self) -> Self {
        std::array::from_fn(|i| acc[i] - a[i] * b[i])
    }

    fn clamp(self, lo: f32, hi: f32) -> Self {
        self.map(|x| x.clamp(lo, hi))
    }

    fn with_sign_of(self, sign: Self) -> Self {
        std::array::from_fn(|i| self[i].copysign(sign[i]))
    }

    fn zero_where_below(self, x: Self, cut: f32) -> Self {
        std::array::from_fn(|i| if x[i] < cut { 0.0 } else { self[i] })
    }

    fn pow2_of_shifted(self) -> Self {
        self.map(super::pow2_of_shifted)
    }

    fn transpose4(rows: [Self; 4]) -> [Self; 4] {
        std::array::from_fn(|i| std::array::from_fn(|j| rows[j][i]))
    }
}

#[cfg(target_arch = "wasm32")]
mod simd {
    use core::arch::wasm32::*;

    impl super::Lanes for v128 {
        fn splat(x: f32) -> Self {
            f32x4_splat(x)
        }

        unsafe fn load(p: *const f32) -> Self {
            // SAFETY: the caller guarantees four readable f32s; v128_load allows any alignment.
            unsafe { v128_load(p.cast()) }
        }

        unsafe fn load_splat(p: *const f32) -> Self {
            // SAFETY: the caller guarantees a readable f32; one instruction, where a scalar load
            // and a splat would take two.
            unsafe { v128_load32_splat(p.cast()) }
        }

        unsafe fn store(self, p: *mut f32) {
            // SAFETY: the caller guarantees four writable f32s; v128_store allows any alignment.
            unsafe { v128_store(p.cast(), self) }
        }

        fn add(self, other: Self) -> Self {
            f32x4_add(self, other)
        }

        fn sub(self, other: Self) -> Self {
            f32x4_sub(self, other)
        }

        fn mul(self, other: Self) -> Self {
            f32x4_mul(self, other)
        }

        fn div(self, other: Self) -> Self {
            f32x4_div(self, other)
        }

        fn abs(self) -> Self {
            f32x4_abs(self)
        }

        #[inline(always)]
        fn mul_add(acc: Self, a: Self, b: Self) -> Self {
            #[cfg(target_feature = "relaxed-simd")]
            return f32x4_relaxed_madd(a, b, acc);
            #[cfg(not(target_feature = "relaxed-simd"))]
            return f32x4_add(acc, f32x4_mul(a, b));
        }

        #[inline(always)]
        fn neg_mul_add(acc: Self, a: Self, b: Self) -> Self {
            #[cfg(target_feature = "relaxed-simd")]
            return f32x4_relaxed_nmadd(a, b, acc);
            #[cfg(not(target_feature = "relaxed-simd"))]
            return f32x4_sub(acc, f32x4_mul(a, b));
        }

        fn clamp(self, lo: f32, hi: f32) -> Self {
            // pmin and pmax with `self` first keep a NaN (their comparisons fail), one
            // instruction each where min and max take a NaN-propagating sequence.
            f32x4_pmin(f32x4_pmax(self, f32x4_splat(lo)), f32x4_splat(hi))
        }

        fn with_sign_of(self, sign: Self) -> Self {
            v128_or(self, v128_and(sign, f32x4_splat(-0.0)))
        }

        fn zero_where_below(self, x: Self, cut: f32) -> Self {
            v128_andnot(self, f32x4_lt(x, f32x4_splat(cut)))
        }

        fn pow2_of_shifted(self) -> Self {
            let k = i32x4_sub(self, f32x4_splat(super::super::ROUND));
            i32x4_shl(i32x4_add(k, i32x4_splat(127)), 23)
        }

        #[inline(always)]
        fn transpose4([r0, r1, r2, r3]: [Self; 4]) -> [Self; 4] {
            // Interleave pairs of rows, then pairs of pairs: shuffles V8 turns into unpack moves.
            let (t0, t1) = (i32x4_shuffle::<0, 4, 1, 5>(r0, r1), i32x4_shuffle::<2, 6, 3, 7>(r0, r1));
            let (t2, t3) = (i32x4_shuffle::<0, 4, 1, 5>(r2, r3), i32x4_shuffle::<2, 6, 3, 7>(r2, r3));
            [
                i64x2_shuffle::<0, 2>(t0, t2),
                i64x2_shuffle::<1, 3>(t0, t2),
                i64x2_shuffle::<0, 2>(t1, t3),
                i64x2_shuffle::<1, 3>(t1, t3),
            ]
        }
    }
}
