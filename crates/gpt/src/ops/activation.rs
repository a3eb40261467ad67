//! Pointwise nonlinearities: GELU (exact and tanh form) and ReLU.

use crate::autograd::{Backward, Graph, Var};
use ndarray::{ArrayD, Zip};
use serde::{Deserialize, Serialize};

/// The MLP's nonlinearity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// `x Φ(x)` with the exact normal CDF, as nanoGPT's `nn.GELU()`.
    Gelu,
    /// GPT-2's tanh approximation of GELU.
    GeluTanh,
    /// `max(x, 0)`.
    Relu,
}

const SQRT_2_OVER_PI: f32 = 0.797_884_6;
const FRAC_1_SQRT_2: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// 1/√(2π), the standard normal density at 0.
const NORMAL_PDF_0: f32 = 0.398_942_3;

/// The error function to within 1e-6 in f32 (Abramowitz and Stegun 7.1.26): branch-free, so it
/// vectorises; libm's f64 erf took an eighth of a training step.
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t * (0.254_829_6 + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    (1.0 - poly * (-a * a).exp()).copysign(x)
}
const GELU_CUBIC: f32 = 0.044_715;

impl Activation {
    fn apply(self, x: f32) -> f32 {
        match self {
            Activation::Gelu => 0.5 * x * (1.0 + erf(x * FRAC_1_SQRT_2)),
            Activation::GeluTanh => 0.5 * x * (1.0 + (SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x)).tanh()),
            Activation::Relu => x.max(0.0),
        }
    }

    fn derivative(self, x: f32) -> f32 {
        match self {
            Activation::Gelu => 0.5 * (1.0 + erf(x * FRAC_1_SQRT_2)) + x * NORMAL_PDF_0 * (-0.5 * x * x).exp(),
            Activation::GeluTanh => {
                let th = (SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x)).tanh();
                let du = SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_CUBIC * x * x);
                0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * du
            }
            Activation::Relu => {
                if x > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

impl Graph<'_> {
    /// `f(x)` elementwise.
    pub fn activation(&mut self, kind: Activation, x: Var) -> Var {
        let out = self.value(x).mapv(|v| kind.apply(v));
        self.push(out, vec![x], Pointwise(kind))
    }
}

struct Pointwise(Activation);

impl Backward for Pointwise {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, mut dout: ArrayD<f32>) -> Vec<Option<ArrayD<f32>>> {
        Zip::from(&mut dout).and(inputs[0]).for_each(|d, &x| *d *= self.0.derivative(x));
        vec![Some(dout)]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn erf_matches_libm_to_within_1e6() {
        let worst = (-6000..=6000)
            .map(|i| i as f32 * 1e-3)
            .map(|x| (super::erf(x) as f64 - libm::erf(x as f64)).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-6, "worst erf error {worst:e}");
    }
}
