//! Runs written in other tools' formats: nanoGPT's `ckpt.pt` (a `torch.save` archive).

pub mod pickle;
pub mod zip;
pub mod torch;
