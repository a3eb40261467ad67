//! Every layer's and head's attention over a text: what the attention section draws.

use crate::error::{Error, Result};
use crate::words::views;
use crate::Run;
use serde::Serialize;

/// Every layer's and head's attention over a text.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttentionMaps {
    pub tokens: Vec<String>,
    pub n_layer: usize,
    pub n_head: usize,
    /// Positions: the text's last `block_size` tokens at most.
    pub t: usize,
    /// `weights[((layer * n_head + head) * t + query) * t + key]`; for the time-lapse, one map
    /// of each step after another.
    pub weights: Vec<f32>,
    /// For the time-lapse, the step of each map.
    pub steps: Option<Vec<usize>>,
}

impl Run {
    /// Every layer's and head's attention over `text`, or its last `block_size` tokens.
    pub fn attention(&self, text: &str) -> Result<AttentionMaps> {
        let ids = self.tokenizer.encode(text)?;
        if ids.is_empty() {
            return Err(Error::Data(views::attention_text()));
        }
        let cfg = self.model().config();
        let ids: Vec<usize> = ids[ids.len().saturating_sub(cfg.block_size)..].iter().map(|&i| i as usize).collect();
        let weights = self.model().attention(&ids)?;
        Ok(AttentionMaps {
            tokens: ids.iter().map(|&i| self.tokenizer.token_text(i as u32)).collect(),
            n_layer: cfg.n_layer,
            n_head: cfg.n_head,
            t: ids.len(),
            weights,
            steps: None,
        })
    }

    /// The time-lapse: every head's attention on the held-out probe at each evaluation so far.
    pub fn timelapse_maps(&self) -> AttentionMaps {
        let (lapse, cfg) = (&self.watch.timelapse, self.model().config());
        let (n_layer, n_head, t) = (cfg.n_layer, cfg.n_head, lapse.tokens.len());
        let (tokens, steps) = (lapse.tokens.clone(), Some(lapse.steps.clone()));
        AttentionMaps { tokens, n_layer, n_head, t, weights: lapse.maps.concat(), steps }
    }
}
