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
    let at = format!("at position {p} ({:?})", f.tokens[p]);
    let btc = |width: usize, name: &str| format!("(B, T, {name}) = (1, {t}, {width})");
    let mut ids = stage(
        "embed.hook_in",
        "Tokens to ids".into(),
        format!("(B, T) = (1, {t})"),
        "b, t = idx.size()",
        format!("The text is split into {t} tokens, each looked up by its id in a vocabulary of {}.", cfg.vocab_size),
    )
    .matrix(t, f.ids.iter().map(|&i| i as f32).collect(), vec!["id".into()], None);
    ids.whole = true;
    let mut out = vec![ids];
    out.push(
        stage(
            "hook_embed",
            format!("Token embedding {at}"),
            btc(c, "C"),
            "tok_emb = self.transformer.wte(idx) # token embeddings of shape (b, t, n_embd)",
            format!("Row {} of the token embedding table: the vector this token starts as.", f.ids[p]),
        )
        .strip(row(hooked, "hook_embed", p)),
    );
    if cfg.rope {
        out.push(
            stage(
                "blocks.0.hook_resid_pre",
                format!("No position table {at}"),
                btc(c, "C"),
                "x = self.transformer.drop(tok_emb)",
                "With rotary positions (RoPE) nothing is added for the position: each head turns its queries and \
                 keys by their positions instead, so attention sees how far apart two tokens are."
                    .into(),
            )
            .strip(row(hooked, "blocks.0.hook_resid_pre", p)),
        );
    } else {
        out.push(
            stage(
                "hook_pos_embed",
                format!("Position embedding {at}"),
                format!("(T, C) = ({t}, {c})"),
                "pos_emb = self.transformer.wpe(pos) # position embeddings of shape (t, n_embd)",
                format!("Row {p} of the learned position table, one per place in the block."),
            )
            .strip(row(hooked, "hook_pos_embed", p)),
        );
        out.push(
            stage(
                "blocks.0.hook_resid_pre",
                format!("Token plus position {at}"),
                btc(c, "C"),
                "x = self.transformer.drop(tok_emb + pos_emb)",
                "The two added: the residual stream entering the first block.".into(),
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
            let labels = ["attention adds", "MLP adds", "stream after"].map(String::from).to_vec();
            out.push(
                stage(
                    "",
                    format!("Block {} {at}", l + 1),
                    btc(c, "C"),
                    "x = x + self.attn(self.ln_1(x)); x = x + self.mlp(self.ln_2(x))",
                    format!(
                        "Three rows: what block {}'s attention adds to the residual stream here, what its MLP adds, \
                         and the stream after (choose layer {} to open it).",
                        l + 1,
                        l + 1
                    ),
                )
                .rows_of(hooks, labels, values, c),
            );
        }
    }
    let last = format!("blocks.{}.hook_resid_post", cfg.n_layer - 1);
    let after = format!("after the last block, {at}");
    let final_norm = ("x = self.transformer.ln_f(x)", "the last block's output");
    out.extend(norm_stages(run, hooked, p, (&last, "ln_final"), &after, final_norm));
    let logits = row(hooked, "logits", p);
    let max = logits.iter().cloned().fold(f32::MIN, f32::max);
    out.push(
        stage(
            LOGITS,
            format!("Logits {at}"),
            btc(cfg.vocab_size, "V"),
            "logits = self.lm_head(x)",
            format!(
                "One score per token of the vocabulary: how much the model favours each as the next. The {} \
                 weights{} map the {c} channels to {} scores.",
                if cfg.tie_weights { "token embedding's" } else { "output layer's" },
                if cfg.tie_weights { " (tied: the same table that embedded the tokens)" } else { "" },
                cfg.vocab_size
            ),
        )
        .strip(logits)
        .noting("largest logit", max),
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
