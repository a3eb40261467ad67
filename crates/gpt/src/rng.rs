//! A portable seeded random number generator: the same seed gives the same stream natively and
//! in wasm32 (unlike `SmallRng`, whose algorithm depends on the pointer width).

use rand_core::{Rng as _, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rand_pcg::Pcg64Mcg;

/// Seeded PCG-64 (MCG variant) with the few draws the model needs.
/// Serializable, so a checkpoint resumes the exact stream.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rng(Pcg64Mcg);

impl Rng {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(Pcg64Mcg::seed_from_u64(seed))
    }

    /// 64 uniform bits, for seeding other generators.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1), from the top 24 bits so every value is exactly representable.
    pub fn uniform(&mut self) -> f32 {
        (self.0.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Uniform integer in [0, n), without modulo bias (Lemire's method). `n` must be positive.
    pub fn below(&mut self, n: usize) -> usize {
        self.below_u64(n as u64) as usize
    }

    /// [`Rng::below`] for counts past `usize` (32 bits in wasm): the same stream for the same `n`.
    pub fn below_u64(&mut self, n: u64) -> u64 {
        loop {
            let m = (self.0.next_u64() as u128) * (n as u128);
            if (m as u64) >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// Standard normal by the ziggurat (rand_distr's), nine times as fast as [`Rng::normal`]: for
    /// SGLD's noise, a draw for every weight at every step. `normal` stays for what saved runs
    /// and their checks were drawn with (weights, dropout).
    pub fn noise(&mut self) -> f32 {
        StandardNormal.sample(&mut self.0)
    }

    /// Standard normal, by Box-Muller in f64 so the tails are right.
    pub fn normal(&mut self) -> f32 {
        let u1 = ((self.0.next_u64() >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64);
        let u2 = (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_known_values() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
        assert!(Rng::new(1).below(10) < 10);
    }

    #[test]
    fn both_normals_have_zero_mean_and_unit_variance() {
        let mut r = Rng::new(3);
        for draw in [Rng::normal, Rng::noise] {
            let xs: Vec<f64> = (0..20000).map(|_| draw(&mut r) as f64).collect();
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
            assert!(mean.abs() < 0.03 && (var - 1.0).abs() < 0.05, "{mean} {var}");
        }
    }
}
