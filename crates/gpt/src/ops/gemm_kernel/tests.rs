//! The wasm kernel against the textbook triple loop, run natively on plain arrays.

use super::*;
use crate::ops::packing::pack_b_whole;
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
    // Edges of every kind: sizes not multiples of the tile, k past one pass, m past one block.
    for (m, n, k) in
        [(1, 1, 1), (3, 17, 5), (7, 13, 300), (130, 9, 2), (5, 33, 257), (4, 48, 10), (9, 24, 520), (197, 14, 9)]
    {
        let a: Vec<f32> = (0..m * k).map(|_| rng.normal()).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.normal()).collect();
        for (a_t, b_t) in [(false, false), (true, false), (false, true), (true, true)] {
            let (ars, acs) = if a_t { (1, m) } else { (k, 1) };
            let (brs, bcs) = if b_t { (1, k) } else { (n, 1) };
            let want = naive((m, n, k), (&a, [ars, acs]), (&b, [brs, bcs]));
            let s = |r: usize, c: usize| [r as isize, c as isize];
            let (av, bv) = (Strided::new(a.as_ptr(), s(ars, acs)), Strided::new(b.as_ptr(), s(brs, bcs)));
            let (mut packed_here, mut packed_3x3) =
                (vec![0.0; k * panel_width::<NV>(n)], vec![0.0; k * panel_width::<3>(n)]);
            // SAFETY: every view addresses exactly its matrix inside these vectors.
            unsafe {
                pack_b_whole::<[f32; 4], NV>(&mut packed_here, bv, k, n);
                pack_b_whole::<[f32; 4], 3>(&mut packed_3x3, bv, k, n);
            }
            for whole in [false, true] {
                let (b_here, b_3x3) = match whole {
                    false => (Operand::Strided(bv), Operand::Strided(bv)),
                    true => (Operand::Packed(&packed_here), Operand::Packed(&packed_3x3)),
                };
                let mut c = vec![1.0; m * n];
                let cv = Strided::new(c.as_mut_ptr(), s(n, 1));
                // SAFETY: as above.
                unsafe {
                    // The page's tile, then another (the kernel is generic in its tile), accumulating.
                    gemm::<[f32; 4], MR, NV>((m, n, k), 0.5, av, b_here, cv, false, None);
                    gemm::<[f32; 4], 3, 3>((m, n, k), 0.5, av, b_3x3, cv, true, None);
                }
                for (got, want) in c.iter().zip(&want) {
                    assert!(
                        (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{m}×{n}×{k} {a_t} {b_t} packed whole {whole}: {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn causal_products_skip_only_zeros() {
    let mut rng = Rng::new(6);
    let (t, hs) = (29, 7);
    let lower: Vec<f32> = (0..t * t).map(|i| if i % t <= i / t { rng.normal() } else { 0.0 }).collect();
    let upper: Vec<f32> = (0..t * t).map(|i| if i % t >= i / t { rng.normal() } else { 0.0 }).collect();
    let v: Vec<f32> = (0..t * hs).map(|_| rng.normal()).collect();
    let s = |r: usize, c: usize| [r as isize, c as isize];
    let close = |got: f32, want: f32| (got - want).abs() <= 1e-4 * (1.0 + want.abs());
    // Scores: only the lower triangle is wanted (a = lower as any t×t matrix, b = its transpose).
    let want = naive((t, t, t), (&lower, [t, 1]), (&lower, [1, t]));
    let mut got = vec![f32::NAN; t * t];
    // SAFETY: every view addresses exactly its matrix inside these vectors.
    unsafe {
        let (av, bv) = (Strided::new(lower.as_ptr(), s(t, 1)), Operand::Strided(Strided::new(lower.as_ptr(), s(1, t))));
        gemm::<[f32; 4], 3, 3>(
            (t, t, t),
            1.0,
            av,
            bv,
            Strided::new(got.as_mut_ptr(), s(t, 1)),
            false,
            Some(Causal::LowerC),
        );
    }
    assert!((0..t).all(|i| (0..=i).all(|j| close(got[i * t + j], want[i * t + j]))));
    // A triangular `a`, in place and transposed (packed).
    for (a, [ars, acs], causal) in [
        (&lower, [t, 1], Causal::LowerA),
        (&upper, [t, 1], Causal::UpperA),
        (&upper, [1, t], Causal::LowerA),
        (&lower, [1, t], Causal::UpperA),
    ] {
        let want = naive((t, hs, t), (a, [ars, acs]), (&v, [hs, 1]));
        for tile in [false, true] {
            let mut got = vec![f32::NAN; t * hs];
            // SAFETY: as above.
            unsafe {
                let (av, bv) =
                    (Strided::new(a.as_ptr(), s(ars, acs)), Operand::Strided(Strided::new(v.as_ptr(), s(hs, 1))));
                let cv = Strided::new(got.as_mut_ptr(), s(hs, 1));
                if tile {
                    gemm::<[f32; 4], 2, 4>((t, hs, t), 1.0, av, bv, cv, false, Some(causal));
                } else {
                    gemm::<[f32; 4], 3, 3>((t, hs, t), 1.0, av, bv, cv, false, Some(causal));
                }
            }
            assert!(got.iter().zip(&want).all(|(&g, &w)| close(g, w)), "{ars}×{acs}");
        }
    }
}
