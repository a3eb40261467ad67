//! nanoGPT's learning-rate schedule: linear warmup, cosine decay, then a floor.

/// The schedule's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    pub learning_rate: f32,
    pub min_lr: f32,
    pub warmup_iters: usize,
    pub lr_decay_iters: usize,
    /// With `false` the rate stays at `learning_rate`.
    pub decay_lr: bool,
}

impl Schedule {
    /// The learning rate for iteration `it` (counted from 0).
    pub fn lr(&self, it: usize) -> f32 {
        if !self.decay_lr {
            return self.learning_rate;
        }
        if it < self.warmup_iters {
            return self.learning_rate * (it + 1) as f32 / (self.warmup_iters + 1) as f32;
        }
        if it > self.lr_decay_iters || self.lr_decay_iters <= self.warmup_iters {
            return self.min_lr;
        }
        let ratio = (it - self.warmup_iters) as f64 / (self.lr_decay_iters - self.warmup_iters) as f64;
        let coeff = 0.5 * (1.0 + (std::f64::consts::PI * ratio).cos());
        (self.min_lr as f64 + coeff * (self.learning_rate - self.min_lr) as f64) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_nanogpt() {
        let s = Schedule { learning_rate: 1e-3, min_lr: 1e-4, warmup_iters: 100, lr_decay_iters: 2000, decay_lr: true };
        assert_eq!(s.lr(0), 1e-3 / 101.0);
        assert!((s.lr(99) - 1e-3 * 100.0 / 101.0).abs() < 1e-9);
        assert_eq!(s.lr(100), 1e-3);
        assert!((s.lr(1050) - 5.5e-4).abs() < 1e-7);
        assert!((s.lr(2000) - 1e-4).abs() < 1e-9);
        assert_eq!(s.lr(5000), 1e-4);
        assert_eq!(Schedule { decay_lr: false, ..s }.lr(5000), 1e-3);
    }
}
