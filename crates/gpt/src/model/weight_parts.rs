//! One part of a GPT's weights as a mask over its flat parameters: what a refined learning
//! coefficient lets move (devinterp's weight restrictions). A head owns its rows of the fused
//! q|k|v projection (weights and biases) and its columns of the output projection; the output
//! bias belongs to no one head, so no head has it.

use super::edits::Site;
use super::gpt::GPT;
use crate::error::{Error, Result};
use crate::params::Params;
use crate::words::llc as words;
use serde::{Deserialize, Serialize};

/// A part of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum WeightPart {
    Whole,
    Head {
        layer: usize,
        head: usize,
    },
    Mlp {
        layer: usize,
    },
    /// The token and position tables.
    Embeddings,
}

impl WeightPart {
    /// The part a label names: `whole`, `embeddings`, or a head or MLP as sites are named
    /// (`L1H2`, `MLP1`, counting from 1).
    pub fn parse(label: &str) -> Option<WeightPart> {
        match label.trim().to_ascii_lowercase().as_str() {
            "whole" => Some(WeightPart::Whole),
            "embeddings" => Some(WeightPart::Embeddings),
            _ => match Site::parse(label)? {
                Site::Head { layer, head } => Some(WeightPart::Head { layer, head }),
                Site::Mlp { layer } => Some(WeightPart::Mlp { layer }),
                Site::Residual { .. } => None,
            },
        }
    }

    pub fn label(&self) -> String {
        match *self {
            WeightPart::Whole => "whole".into(),
            WeightPart::Embeddings => "embeddings".into(),
            WeightPart::Head { layer, head } => Site::Head { layer, head }.label(),
            WeightPart::Mlp { layer } => Site::Mlp { layer }.label(),
        }
    }
}

impl GPT {
    /// Which of the flat parameters (in `Params` order) belong to `part`; none for the whole.
    pub fn part_mask(&self, part: WeightPart) -> Result<Option<Vec<bool>>> {
        let config = self.config();
        let (layers, heads, c) = (config.n_layer, config.n_head, config.n_embd);
        let params = self.params();
        let mut mask = vec![false; params.count()];
        match part {
            WeightPart::Whole => return Ok(None),
            WeightPart::Head { layer, head } if layer < layers && head < heads => {
                let (name, hs) = (format!("transformer.h.{layer}.attn"), c / heads);
                // q, k and v: rows head·hs.. of each third of c_attn, each row c wide.
                for third in 0..3 {
                    let rows = third * c + head * hs..third * c + (head + 1) * hs;
                    mark(params, &mut mask, &format!("{name}.c_attn.weight"), |i| rows.contains(&(i / c)));
                    mark(params, &mut mask, &format!("{name}.c_attn.bias"), |i| rows.contains(&i));
                }
                mark(params, &mut mask, &format!("{name}.c_proj.weight"), |i| i % c / hs == head);
            }
            WeightPart::Mlp { layer } if layer < layers => {
                let prefix = format!("transformer.h.{layer}.mlp.");
                for name in params.names.iter().filter(|n| n.starts_with(&prefix)) {
                    mark(params, &mut mask, name, |_| true);
                }
            }
            WeightPart::Embeddings => {
                for name in ["transformer.wte.weight", "transformer.wpe.weight"] {
                    mark(params, &mut mask, name, |_| true);
                }
            }
            _ => return Err(Error::Config(words::no_part(layers, heads))),
        }
        Ok(Some(mask))
    }
}

/// Marks the entries of parameter `name` (if the model has it) whose index within it passes `keep`.
fn mark(params: &Params, mask: &mut [bool], name: &str, keep: impl Fn(usize) -> bool) {
    let Some(index) = params.index(name) else { return };
    let at: usize = params.values[..index].iter().map(|v| v.len()).sum();
    for i in 0..params.values[index].len() {
        mask[at + i] |= keep(i);
    }
}
