//! What the walk follows, with its defaults: a sequence (typed, a held-out problem, or the start of
//! the held-out text), a position in it, the head whose attention opens, and the token the
//! training step teaches there.

use super::request::WalkRequest;
use crate::error::{Error, Result};
use crate::inspect::scores::HeadScores;
use crate::sample::NextToken;
use crate::words::views;
use crate::Run;
use serde::Serialize;

/// Tokens of held-out text the walk follows by default: enough to attend over, few enough to read.
const DEFAULT_TOKENS: usize = 16;

/// The sequence, position, head and target the walk follows.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Followed {
    /// The sequence as a person types it (a task's problem in its typed form).
    pub text: String,
    pub ids: Vec<u32>,
    /// Each token's text.
    pub tokens: Vec<String>,
    /// The position followed, from 0.
    pub position: usize,
    /// The layer and head opened, from 0.
    pub layer: usize,
    pub head: usize,
    /// The token the training step teaches at the position, with the model's probability for it.
    pub target: NextToken,
}

impl Run {
    /// What `request` follows, each part left out taking its default.
    pub(crate) fn follow(&self, request: &WalkRequest) -> Result<Followed> {
        let cfg = self.model().config();
        let (text, ids, default_position, next) = self.walk_sequence(&request.text)?;
        let position = request.position.unwrap_or(default_position);
        if position >= ids.len() {
            return Err(Error::Data(views::position_past(position, ids.len() - 1)));
        }
        let (layer, head) = match (request.layer, request.head) {
            (Some(l), Some(h)) => (l, h),
            _ => self.named_head(),
        };
        if layer >= cfg.n_layer || head >= cfg.n_head {
            return Err(Error::Data(views::not_in_model(layer, head, cfg.n_layer, cfg.n_head)));
        }
        let id = if !request.target.is_empty() {
            match self.tokenizer().encode(&request.target)?[..] {
                [id] => id,
                ref ids => {
                    return Err(Error::Data(views::target_one_token(format!("{:?}", request.target), ids.len())))
                }
            }
        } else {
            match (ids.get(position + 1), next) {
                (Some(&id), _) | (None, Some(id)) => id,
                (None, None) => self.likeliest_after(&ids)?,
            }
        };
        let probs = crate::sample::next_token_probs(self.model(), &ids[..=position], 1.0)?;
        let target = NextToken { id, token: self.tokenizer().token_text(id), prob: probs[id as usize] };
        let tokens = ids.iter().map(|&i| self.tokenizer().token_text(i)).collect();
        Ok(Followed { text, ids, tokens, position, layer, head, target })
    }

    /// The sequence: as typed (a task's problem read as the problems panel reads it), or a held-out
    /// problem, or the start of the held-out text; the position it ends its prompt at, and the
    /// token the data has after its last, where the data says.
    fn walk_sequence(&self, typed: &str) -> Result<(String, Vec<u32>, usize, Option<u32>)> {
        let block = self.model().config().block_size;
        if let Some(task) = self.task() {
            let problem =
                if typed.trim().is_empty() { crate::run::shown_example(task) } else { task.parse(typed, block)? };
            // The model reads the problem but its last token, as training does.
            let (last, ids) = problem.tokens.split_last().expect("a problem has an answer");
            return Ok((task.typed(&problem), ids.to_vec(), problem.prompt_len - 1, Some(*last)));
        }
        if typed.is_empty() {
            let held_out = self.held_out();
            if held_out.len() < 2 {
                return Err(Error::Data(views::follow_held_out()));
            }
            let n = DEFAULT_TOKENS.min(held_out.len() - 1).min(block);
            let ids: Vec<u32> = held_out[..n].iter().map(|&i| i as u32).collect();
            let text = ids.iter().map(|&i| self.tokenizer().token_text(i)).collect();
            return Ok((text, ids, n - 1, Some(held_out[n] as u32)));
        }
        let ids = self.tokenizer().encode(typed)?;
        if ids.is_empty() {
            return Err(Error::Data(views::follow_text()));
        }
        let ids = ids[ids.len().saturating_sub(block)..].to_vec();
        Ok((typed.to_string(), ids.clone(), ids.len() - 1, None))
    }

    /// The head the run's scores name: the induction head once one formed, else the head with the
    /// highest induction score at the last evaluation (the last layer's first before any).
    fn named_head(&self) -> (usize, usize) {
        let cfg = self.model().config();
        if let Some(onset) = self.induction_onset() {
            return (onset.layer, onset.head);
        }
        let last = self.history().records::<HeadScores>().pop();
        let best = last.and_then(|s| (0..s.induction.len()).max_by(|&a, &b| s.induction[a].total_cmp(&s.induction[b])));
        best.map_or((cfg.n_layer - 1, 0), |i| (i / cfg.n_head, i % cfg.n_head))
    }

    /// The model's likeliest token after `ids`.
    fn likeliest_after(&self, ids: &[u32]) -> Result<u32> {
        let probs = crate::sample::next_token_probs(self.model(), ids, 1.0)?;
        Ok(crate::sample::most_likely(&probs, 1)[0].0)
    }
}
