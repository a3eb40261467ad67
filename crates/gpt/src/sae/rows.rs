//! Row-wise helpers for an autoencoder's start and upkeep: unit-norm rows (its decoder's
//! directions, and any set of directions), and the geometric median its decoder bias starts at.

/// Scales every row of `w` (rows of `d`) to unit norm; a zero row stays zero.
pub fn normalize_rows(w: &mut [f32], d: usize) {
    for row in w.chunks_exact_mut(d) {
        let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            row.iter_mut().for_each(|x| *x /= norm);
        }
    }
}

/// The geometric median of `sample` (rows of `d`), by Weiszfeld's iterations from the mean; zeros
/// for no rows.
pub(crate) fn geometric_median(sample: &[f32], d: usize) -> Vec<f32> {
    let rows = sample.len() / d;
    let mut median: Vec<f64> = vec![0.0; d];
    if rows == 0 {
        return vec![0.0; d];
    }
    for row in sample.chunks_exact(d) {
        median.iter_mut().zip(row).for_each(|(m, &x)| *m += x as f64 / rows as f64);
    }
    for _ in 0..50 {
        let (mut next, mut total) = (vec![0.0f64; d], 0.0f64);
        for row in sample.chunks_exact(d) {
            let dist = row.iter().zip(&median).map(|(&x, m)| (x as f64 - m).powi(2)).sum::<f64>().sqrt();
            let w = 1.0 / dist.max(1e-8);
            next.iter_mut().zip(row).for_each(|(n, &x)| *n += w * x as f64);
            total += w;
        }
        next.iter_mut().for_each(|n| *n /= total);
        let moved = next.iter().zip(&median).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
        median = next;
        if moved < 1e-7 {
            break;
        }
    }
    median.into_iter().map(|m| m as f32).collect()
}
