//! Running sums over activations and their reconstructions, in f64: the reconstruction error, the
//! activations' variance (the loss of guessing their mean) and the share of it explained; and
//! when a feature counts as dense.

/// A feature firing on more than this share of tokens counts as dense.
pub const DENSE: f32 = 0.1;

/// Running sums for the reconstruction error and the activations' variance, in f64 (the variance
/// is a difference of two large, nearly equal numbers).
#[derive(Default)]
pub struct Sums {
    /// Rows added.
    pub tokens: usize,
    squared_error: f64,
    squared_norm: f64,
    /// Each channel's sum.
    sum: Vec<f64>,
}

impl Sums {
    pub fn new(d: usize) -> Sums {
        Sums { sum: vec![0.0; d], ..Sums::default() }
    }

    pub fn add(&mut self, x: &[f32], recon: &[f32], d: usize) {
        for (row, r) in x.chunks_exact(d).zip(recon.chunks_exact(d)) {
            self.tokens += 1;
            for ((&a, &b), m) in row.iter().zip(r).zip(self.sum.iter_mut()) {
                self.squared_error += ((a - b) as f64).powi(2);
                self.squared_norm += (a as f64).powi(2);
                *m += a as f64;
            }
        }
    }

    pub fn mse(&self) -> f32 {
        (self.squared_error / self.tokens.max(1) as f64) as f32
    }

    /// The activations' variance summed over channels: E‖x‖² − ‖E x‖².
    pub fn variance(&self) -> f64 {
        let n = self.tokens.max(1) as f64;
        self.squared_norm / n - self.sum.iter().map(|s| (s / n).powi(2)).sum::<f64>()
    }

    pub fn explained_variance(&self) -> f32 {
        (1.0 - self.squared_error / self.tokens.max(1) as f64 / self.variance()) as f32
    }
}

/// The activations' variance summed over channels: the loss of guessing their mean.
pub fn activation_variance(sample: &[f32], d: usize) -> f32 {
    let mut sums = Sums::new(d);
    sums.add(sample, sample, d);
    sums.variance() as f32
}
