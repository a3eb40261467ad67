//! Runs written in other tools' formats: nanoGPT's `ckpt.pt` (a `torch.save` archive).

pub mod nanogpt;
pub mod pickle;
pub mod torch;
pub mod zip;
