//! The draw's flags, shared by `gpt sample` and `gpt walk`: each one left out is the checkpoint's
//! last draw's (the page saves it with a run), or else the default shown.

use gpt::SampleConfig;

#[derive(clap::Args)]
pub struct DrawFlags {
    /// 0 always takes the most likely token [default: the last draw's, else 0.8].
    #[arg(long)]
    temperature: Option<f32>,
    /// Keep only the k most likely tokens; 0 keeps all [default: the last draw's, else 0].
    #[arg(long)]
    top_k: Option<usize>,
    /// [default: the last draw's, else 1337]
    #[arg(long)]
    seed: Option<u64>,
}

impl DrawFlags {
    /// `saved` with each flag given in its place.
    pub fn over(&self, saved: SampleConfig) -> SampleConfig {
        SampleConfig {
            temperature: self.temperature.unwrap_or(saved.temperature),
            top_k: self.top_k.unwrap_or(saved.top_k),
            seed: self.seed.unwrap_or(saved.seed),
            ..saved
        }
    }
}
