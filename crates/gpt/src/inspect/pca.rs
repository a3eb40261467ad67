//! Principal component analysis, for drawing token embeddings in two dimensions.

/// The top `k` principal components of the `n` rows of `x` (n × d, row-major): each row's
/// coordinates along them (n × k, row-major), and the share of the total variance each explains.
/// Deterministic: power iteration from a fixed start, with deflation.
pub fn pca(x: &[f32], n: usize, d: usize, k: usize) -> (Vec<f32>, Vec<f32>) {
    assert_eq!(x.len(), n * d, "x must hold n rows of d values");
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let mean: Vec<f64> = (0..d).map(|j| (0..n).map(|i| row(i)[j] as f64).sum::<f64>() / n.max(1) as f64).collect();
    // The covariance, d × d, in f64.
    let mut cov = vec![0.0f64; d * d];
    for i in 0..n {
        let centred: Vec<f64> = row(i).iter().zip(&mean).map(|(&v, m)| v as f64 - m).collect();
        for a in 0..d {
            for b in 0..d {
                cov[a * d + b] += centred[a] * centred[b];
            }
        }
    }
    let total: f64 = (0..d).map(|a| cov[a * d + a]).sum::<f64>().max(f64::MIN_POSITIVE);
    let mut components = Vec::new();
    let mut explained = Vec::new();
    for _ in 0..k.min(d) {
        // A start with a part along every axis, so it is never orthogonal to the top component.
        let mut v: Vec<f64> = (0..d).map(|j| 1.0 + j as f64 / d as f64).collect();
        let mut value = 0.0;
        for _ in 0..500 {
            let mut w: Vec<f64> = (0..d).map(|a| (0..d).map(|b| cov[a * d + b] * v[b]).sum()).collect();
            let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm == 0.0 {
                break;
            }
            w.iter_mut().for_each(|x| *x /= norm);
            let moved = w.iter().zip(&v).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            (v, value) = (w, norm);
            if moved < 1e-10 {
                break;
            }
        }
        // Deflate: remove this component, so the next iteration finds the one after it.
        for a in 0..d {
            for b in 0..d {
                cov[a * d + b] -= value * v[a] * v[b];
            }
        }
        explained.push((value / total) as f32);
        components.push(v);
    }
    let mut coords = Vec::with_capacity(n * components.len());
    for i in 0..n {
        for c in &components {
            coords.push(row(i).iter().zip(&mean).zip(c).map(|((&v, m), c)| (v as f64 - m) * c).sum::<f64>() as f32);
        }
    }
    (coords, explained)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn finds_a_known_principal_axis() {
        // Points spread along (3, 4, 0)/5 with a little noise off it.
        let mut rng = Rng::new(3);
        let n = 200;
        let mut x = Vec::new();
        for _ in 0..n {
            let s = 10.0 * rng.normal();
            x.extend([0.6 * s + 0.1 * rng.normal() + 2.0, 0.8 * s + 0.1 * rng.normal() - 1.0, 0.1 * rng.normal()]);
        }
        let (coords, explained) = pca(&x, n, 3, 2);
        assert!(explained[0] > 0.99 && explained[1] < 0.01, "{explained:?}");
        // The first coordinate of each point is its position along the axis (up to sign).
        let along: Vec<f32> = (0..n).map(|i| 0.6 * (x[i * 3] - 2.0) + 0.8 * (x[i * 3 + 1] + 1.0)).collect();
        let mean = along.iter().sum::<f32>() / n as f32;
        let worst = (0..n).map(|i| (coords[i * 2].abs() - (along[i] - mean).abs()).abs()).fold(0.0, f32::max);
        assert!(worst < 0.5, "off by {worst}");
    }
}
