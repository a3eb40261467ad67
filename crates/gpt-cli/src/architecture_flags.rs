//! The autoencoder's architecture, as `gpt features` and `gpt superposition --synthetic` take it.

use gpt::sae::{Architecture, JUMP_BANDWIDTH};

#[derive(clap::Args)]
pub struct ArchitectureFlags {
    /// The autoencoder's architecture [default: topk, or relu with --l1]: batchtopk and
    /// matryoshka choose k per row on average over the batch, then fire above a learnt threshold;
    /// jumprelu fires above a threshold per feature, learnt against --l0.
    #[arg(long, value_enum)]
    architecture: Option<Kind>,
    /// Features active per token (TopK, BatchTopK and Matryoshka) [default: 32, or 4 with --synthetic].
    #[arg(long)]
    k: Option<usize>,
    /// Train a ReLU autoencoder with this L1 penalty.
    #[arg(long)]
    l1: Option<f32>,
    /// JumpReLU's penalty on each firing feature.
    #[arg(long, default_value_t = 0.1)]
    l0: f32,
    /// Matryoshka's nested levels: the first d_sae/2^(levels−1), …, d_sae/2 features also
    /// reconstruct alone.
    #[arg(long, default_value_t = 3)]
    levels: usize,
    /// The weight of the auxiliary loss on dead features (TopK, BatchTopK, Matryoshka).
    #[arg(long, default_value_t = 1.0)]
    aux: f32,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Kind {
    Topk,
    Batchtopk,
    Matryoshka,
    Jumprelu,
    Relu,
}

impl ArchitectureFlags {
    /// The architecture the flags name, TopK's k `k` unless `--k` says.
    pub fn architecture(&self, k: usize) -> Result<Architecture, String> {
        let (k, aux_coefficient) = (self.k.unwrap_or(k), self.aux);
        let kind = self.architecture.unwrap_or(if self.l1.is_some() { Kind::Relu } else { Kind::Topk });
        Ok(match kind {
            Kind::Topk => Architecture::TopK { k, aux_coefficient },
            Kind::Batchtopk => Architecture::BatchTopK { k, aux_coefficient },
            Kind::Matryoshka => Architecture::Matryoshka { k, aux_coefficient, levels: self.levels },
            Kind::Jumprelu => Architecture::JumpRelu { l0_coefficient: self.l0, bandwidth: JUMP_BANDWIDTH },
            Kind::Relu => Architecture::Relu {
                l1_coefficient: self.l1.ok_or("--architecture relu: give its L1 penalty, --l1 (e.g. 5)")?,
            },
        })
    }
}
