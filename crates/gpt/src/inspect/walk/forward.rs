//! The forward pass, stage by stage, at the position followed: the tokens, the embeddings, each
//! block (the one opened in full in `block.rs`, the others as what they add), the final norm, the
//! logits and the draw.

use super::block::{norm_stages, opened_block};
use super::request::WalkRequest;
use super::sequence::Followed;
use super::stage::{row, stage, Stage};
use crate::error::Result;
use crate::model::Hooked;
use crate::sample::{draw_weights, most_likely, NextToken, SampleConfig, Sampler};
use crate::words::walk as words;
use crate::Run;
use serde::Serialize;

/// Likeliest tokens the draw lists.
const LIKELIEST: usize = 8;
/// TransformerLens's hook for the logits (its bridge's; run_with_cache also returns them).
pub(super) const LOGITS: &str = "unembed.hook_out";

/// The probabilities at the sampling settings after the followed position, and the token a
/// sample with them draws first.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Draw {
    pub temperature: f32,
    pub top_k: usize,
    /// The likeliest tokens at those settings, most likely first.
    pub likeliest: Vec<NextToken>,
    /// The token drawn (with the seed; the likeliest at temperature 0).
    pub picked: NextToken,
}

/// Every forward stage of the walk.
pub(super) fn stages(run: &Run, f: &Followed, hooked: &Hooked) -> Vec<Stage> {
    let cfg = run.model().config();
    let (t, c, p) = (f.ids.len(), cfg.n_embd, f.position);
    let at = words::at(p, format!("{:?}", f.tokens[p]));
    let btc = |width: usize, name: &str| format!("(B, T, {name}) = (1, {t}, {width})");
    let mut ids = stage(
        "embed.hook_in",
        words::tokens_title(),
        format!("(B, T) = (1, {t})"),
        "b, t = idx.size()",
        words::tokens_what(t, cfg.vocab_size),
    )
    .rows_of(vec!["embed.hook_in".into()], vec![words::id_row()], f.ids.iter().map(|&i| i as f32).collect(), t);
    ids.whole = true;
    let mut out = vec![ids];
    out.push(
        stage(
            "hook_embed",
            words::token_embedding_title(at.clone()),
            btc(c, "C"),
            "tok_emb = self.transformer.wte(idx) # token embeddings of shape (b, t, n_embd)",
            words::token_embedding_what(f.ids[p]),
        )
        .strip(row(hooked, "hook_embed", p)),
    );
    if cfg.rope {
        out.push(
            stage(
                "blocks.0.hook_resid_pre",
                words::no_position_title(at.clone()),
                btc(c, "C"),
                "x = self.transformer.drop(tok_emb)",
                words::no_position_what(),
            )
            .strip(row(hooked, "blocks.0.hook_resid_pre", p)),
        );
    } else {
        out.push(
            stage(
                "hook_pos_embed",
                words::position_title(at.clone()),
                format!("(T, C) = ({t}, {c})"),
                "pos_emb = self.transformer.wpe(pos) # position embeddings of shape (t, n_embd)",
                words::position_what(p),
            )
            .strip(row(hooked, "hook_pos_embed", p)),
        );
        out.push(
            stage(
                "blocks.0.hook_resid_pre",
                words::sum_title(at.clone()),
                btc(c, "C"),
                "x = self.transformer.drop(tok_emb + pos_emb)",
                words::sum_what(),
            )
            .strip(row(hooked, "blocks.0.hook_resid_pre", p)),
        );
    }
    for l in 0..cfg.n_layer {
        if l == f.layer {
            out.extend(opened_block(run, f, hooked));
        } else {
            let hooks: Vec<String> =
                ["hook_attn_out", "hook_mlp_out", "hook_resid_post"].map(|h| format!("blocks.{l}.{h}")).to_vec();
            let values = hooks.iter().flat_map(|h| row(hooked, h, p)).collect();
            let labels = vec![words::attention_adds(), words::mlp_adds(), words::stream_after()];
            out.push(
                stage(
                    "",
                    words::closed_block_title(l + 1, at.clone()),
                    btc(c, "C"),
                    "x = x + self.attn(self.ln_1(x)); x = x + self.mlp(self.ln_2(x))",
                    words::closed_block_what(l + 1),
                )
                .rows_of(hooks, labels, values, c),
            );
        }
    }
    let last = format!("blocks.{}.hook_resid_post", cfg.n_layer - 1);
    let after = words::after_last(at.clone());
    let final_norm = ("x = self.transformer.ln_f(x)", words::last_output());
    out.extend(norm_stages(run, hooked, p, (&last, "ln_final"), after, final_norm));
    let logits = row(hooked, "logits", p);
    let max = logits.iter().cloned().fold(f32::MIN, f32::max);
    out.push(
        stage(
            LOGITS,
            words::logits_title(at),
            btc(cfg.vocab_size, "V"),
            "logits = self.lm_head(x)",
            words::logits_what(cfg.tie_weights, c, cfg.vocab_size),
        )
        .strip(logits)
        .noting(words::largest_logit(), max),
    );
    out
}

/// The probabilities after the followed position at the request's temperature and top-k, and the
/// token a sample with them draws first.
pub(super) fn draw(run: &Run, f: &Followed, hooked: &Hooked, request: &WalkRequest) -> Result<Draw> {
    let logits = row(hooked, "logits", f.position);
    let greedy = request.temperature == 0.0;
    let mut weights = vec![];
    draw_weights(&logits, if greedy { 1.0 } else { request.temperature }, request.top_k, &mut weights);
    let total: f32 = weights.iter().sum();
    let probs: Vec<f32> = weights.iter().map(|w| w / total).collect();
    let token = |(id, prob): (u32, f32)| NextToken { id, token: run.tokenizer().token_text(id), prob };
    let likeliest: Vec<NextToken> = most_likely(&probs, LIKELIEST).into_iter().map(token).collect();
    let config = SampleConfig {
        temperature: request.temperature,
        top_k: request.top_k,
        seed: request.seed,
        max_new_tokens: 1,
        prompt: String::new(),
    };
    let picked = Sampler::new(&f.ids[..=f.position], config)?.next_token(run.model())?.unwrap_or(likeliest[0].id);
    Ok(Draw {
        temperature: request.temperature,
        top_k: request.top_k,
        likeliest,
        picked: token((picked, probs[picked as usize])),
    })
}
