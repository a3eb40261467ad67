//! The forward pass, stage by stage, at the position followed: the tokens, the embeddings, each
//! block (the layer opened in full: its norm, the head's queries, keys and values at every
//! position, their scores, the softmax, the weighted sum, the heads together, the projection, the
//! MLP; the others as what they add), the final norm, the logits and the draw.

use super::request::WalkRequest;
use super::sequence::Followed;
use super::stage::{stage, Stage};
use crate::error::Result;
use crate::model::Hooked;
use crate::ops::{Activation, NormKind};
use crate::sample::{draw_weights, most_likely, NextToken, SampleConfig, Sampler};
use crate::Run;
use serde::Serialize;

/// Likeliest tokens the draw lists.
const LIKELIEST: usize = 8;

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

/// Row `p` of a hook point's (1, T, D) value.
pub(super) fn row(hooked: &Hooked, name: &str, p: usize) -> Vec<f32> {
    let v = hooked.get(name).map_or(&[][..], |v| &v.values[..]);
    let d = v.len() / hooked.t.max(1);
    v.get(p * d..(p + 1) * d).map_or_else(Vec::new, <[f32]>::to_vec)
}

/// Columns `from..from + width` of every row of a (1, T, D) value (a head's part of q, k or v).
pub(super) fn columns(values: &[f32], t: usize, from: usize, width: usize) -> Vec<f32> {
    let d = values.len() / t.max(1);
    (0..t).flat_map(|i| values[i * d + from..i * d + from + width].iter().copied()).collect()
}

/// A norm's two stages at position `p`: the stream `input` normalised (its mean and spread
/// noted), then scaled channel by channel by its gain (and for a LayerNorm with biases shifted),
/// the module `module`'s output (`ln_final`, `blocks.0.ln1`).
fn norm_stages(
    run: &Run,
    hooked: &Hooked,
    p: usize,
    (input, module): (&str, &str),
    title: &str,
    (code, what): (&str, &str),
) -> [Stage; 2] {
    let cfg = run.model().config();
    let x = row(hooked, input, p);
    let rms = cfg.norm == NormKind::RmsNorm;
    let mut normalised = vec![0.0; x.len()];
    let (mean, scale) = crate::ops::norm::normalize_row(!rms, &x, &vec![1.0; x.len()], None, &mut normalised);
    let shape = format!("(B, T, C) = (1, {}, {})", hooked.t, cfg.n_embd);
    let how = if rms {
        "divided by its root mean square (RMSNorm)"
    } else {
        "shifted to mean 0 and divided by its standard deviation (LayerNorm)"
    };
    let gain = if cfg.bias && !rms { "times its gain, plus its bias" } else { "times its gain" };
    let normalised = stage(
        &format!("{module}.hook_normalized"),
        format!("Normalised {title}"),
        shape.clone(),
        if rms { "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) # python/nanogpt.py" } else { code },
        format!("Each row of {what}, {how}, so every position enters at the same scale."),
    )
    .strip(normalised);
    let normalised = if rms { normalised } else { normalised.noting("mean of the stream in", mean) };
    let out = stage(
        &format!("{module}.hook_out"),
        format!("Scaled by the norm's gain {title}"),
        shape,
        code,
        format!("The normalised row {gain}, channel by channel: what the next layer reads."),
    )
    .strip(row(hooked, &format!("{module}.hook_out"), p));
    [normalised.noting(if rms { "root mean square in" } else { "spread of the stream in" }, 1.0 / scale), out]
}

/// Every forward stage of the walk.
pub(super) fn stages(run: &Run, f: &Followed, hooked: &Hooked) -> Vec<Stage> {
    let cfg = run.model().config();
    let (t, c, p) = (f.ids.len(), cfg.n_embd, f.position);
    let at = format!("at position {p} ({:?})", f.tokens[p]);
    let btc = |width: usize, name: &str| format!("(B, T, {name}) = (1, {t}, {width})");
    let mut out = vec![stage(
        "idx",
        "Tokens to ids".into(),
        format!("(B, T) = (1, {t})"),
        "b, t = idx.size()",
        format!("The text is split into {t} tokens, each looked up by its id in a vocabulary of {}.", cfg.vocab_size),
    )
    .matrix(t, f.ids.iter().map(|&i| i as f32).collect(), vec!["id".into()], None)];
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
            let rows = ["hook_attn_out", "hook_mlp_out", "hook_resid_post"];
            let values = rows.iter().flat_map(|h| row(hooked, &format!("blocks.{l}.{h}"), p)).collect();
            let labels = ["attention", "MLP", "after"].map(String::from).to_vec();
            out.push(
                stage(
                    &format!("blocks.{l}.hook_resid_post"),
                    format!("Block {} {at}", l + 1),
                    btc(c, "C"),
                    "x = x + self.attn(self.ln_1(x)); x = x + self.mlp(self.ln_2(x))",
                    format!(
                        "What block {}'s attention and its MLP add to the residual stream here, and the stream after \
                         (choose layer {} to open it).",
                        l + 1,
                        l + 1
                    ),
                )
                .matrix(c, values, labels, None),
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
            "logits",
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

/// The opened block's stages: its norm, the head's attention in full, the heads together, and
/// the MLP.
fn opened_block(run: &Run, f: &Followed, hooked: &Hooked) -> Vec<Stage> {
    let cfg = run.model().config();
    let (t, c, p, l, h) = (f.ids.len(), cfg.n_embd, f.position, f.layer, f.head);
    let (nh, hs) = (cfg.n_head, cfg.n_embd / cfg.n_head);
    let at = format!("at position {p} ({:?})", f.tokens[p]);
    let name = |hook: &str| format!("blocks.{l}.{hook}");
    let block = format!("block {}", l + 1);
    let head = format!("head {} of layer {}", h + 1, l + 1);
    let btc = |width: usize, dim: &str| format!("(B, T, {dim}) = (1, {t}, {width})");
    let bnth = format!("(B, nh, T, hs) = (1, {nh}, {t}, {hs})");
    let tokens = f.tokens.clone();
    let mut out = vec![];
    let ln1 = name("ln1");
    let before = format!("before attention, {block}, {at}");
    let code = ("self.ln_1(x)", "the stream entering the block");
    out.extend(norm_stages(run, hooked, p, (&name("hook_resid_pre"), &ln1), &before, code));
    let qkv = hooked.get(&name("attn.hook_qkv")).map_or(vec![], |v| v.values.clone());
    let parts = [
        ("q", "Queries", "what each position looks for"),
        ("k", "Keys", "what each position offers to be found by"),
        ("v", "Values", "what each position passes on when it is looked at"),
    ];
    for (k, (part, noun, what)) in parts.into_iter().enumerate() {
        out.push(
            stage(
                &name(&format!("attn.hook_{part}")),
                format!("{noun}, {head}"),
                bnth.clone(),
                &format!("{part} = {part}.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)"),
                format!(
                    "The head's {}: {what}, at every position. From q, k, v = self.c_attn(x).split(self.n_embd, \
                     dim=2): {hs} of the {} columns.",
                    noun.to_lowercase(),
                    3 * c
                ),
            )
            .matrix(hs, columns(&qkv, t, k * c + h * hs, hs), tokens.clone(), Some(p)),
        );
    }
    let mut last = qkv;
    if cfg.qk_norm {
        let normed = hooked.get(&name("attn.q_norm.hook_normalized")).map_or(vec![], |v| v.values.clone());
        for (k, part) in ["q", "k"].iter().enumerate() {
            out.push(
                stage(
                    &name(&format!("attn.{part}_norm.hook_normalized")),
                    format!("{} after QK-norm, {head}", part.to_uppercase()),
                    bnth.clone(),
                    "q, k = (F.rms_norm(t, (t.size(-1),), eps=1e-5) for t in (q, k)) # python/nanogpt.py",
                    "Each query and key divided by its root mean square, so their dot products stay in range.".into(),
                )
                .matrix(hs, columns(&normed, t, k * c + h * hs, hs), tokens.clone(), Some(p)),
            );
        }
        last = normed;
    }
    if cfg.rope {
        let rotated = hooked.get(&name("attn.hook_rot_q")).map_or(vec![], |v| v.values.clone());
        for (k, part) in ["q", "k"].iter().enumerate() {
            out.push(
                stage(
                    &name(&format!("attn.hook_rot_{part}")),
                    format!("{} turned by position (RoPE), {head}", part.to_uppercase()),
                    bnth.clone(),
                    "q, k = rotary(q), rotary(k) # python/nanogpt.py",
                    "Each pair of channels turned by an angle that grows with the position: a query and a key \
                     then meet at an angle set by how far apart they are."
                        .into(),
                )
                .matrix(hs, columns(&rotated, t, k * c + h * hs, hs), tokens.clone(), Some(p)),
            );
        }
        last = rotated;
    }
    let (q, k) = (columns(&last, t, h * hs, hs), columns(&last, t, c + h * hs, hs));
    let scale = 1.0 / (hs as f32).sqrt();
    let scores: Vec<f32> = (0..t)
        .flat_map(|i| {
            let (q, k) = (&q, &k);
            (0..t).map(move |j| {
                if j > i {
                    0.0
                } else {
                    q[i * hs..(i + 1) * hs].iter().zip(&k[j * hs..(j + 1) * hs]).map(|(a, b)| a * b).sum::<f32>()
                        * scale
                }
            })
        })
        .collect();
    let mut scores_stage = stage(
        &name("attn.hook_attn_scores"),
        format!("Scores q·k / √{hs}, {head}"),
        format!("(B, nh, T, T) = (1, {nh}, {t}, {t})"),
        "att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))",
        "How well each query matches each key, divided by the square root of the head size. Cells above the \
         diagonal are masked (att.masked_fill(... float('-inf'))): a position never sees a later one."
            .into(),
    )
    .matrix(t, scores, tokens.clone(), Some(p));
    scores_stage.causal = true;
    out.push(scores_stage);
    let pattern = head_pattern(hooked, l, h, nh, t);
    let mut pattern_stage = stage(
        &name("attn.hook_pattern"),
        format!("Softmax: where {head} looks"),
        format!("(B, nh, T, T) = (1, {nh}, {t}, {t})"),
        "att = F.softmax(att, dim=-1)",
        format!(
            "Each row turned into weights that add up to 1 (row {p} is the position followed). This is the \
             attention map the heads view draws."
        ),
    )
    .matrix(t, pattern.clone(), tokens.clone(), Some(p));
    pattern_stage.causal = true;
    out.push(pattern_stage);
    let z = row(hooked, &name("attn.hook_z"), p);
    out.push(
        stage(
            &name("attn.hook_z"),
            format!("Weighted sum of values, {head}, {at}"),
            bnth.clone(),
            "y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)",
            format!("The values of every position, each times its weight in row {p}, added up."),
        )
        .strip(z[h * hs..(h + 1) * hs].to_vec()),
    );
    out.push(
        stage(
            &name("attn.hook_z"),
            format!("Every head's output side by side, {block}, {at}"),
            btc(c, "C"),
            "y = y.transpose(1, 2).contiguous().view(B, T, C) # re-assemble all head outputs side by side",
            format!("The {nh} heads' sums, head after head, {hs} channels each."),
        )
        .strip(z),
    );
    out.push(
        stage(
            &name("hook_attn_out"),
            format!("Output projection, {block}, {at}"),
            btc(c, "C"),
            "y = self.resid_dropout(self.c_proj(y))",
            "A linear map mixing the heads' outputs into what attention adds to the stream.".into(),
        )
        .strip(row(hooked, &name("hook_attn_out"), p)),
    );
    out.push(
        stage(
            &name("hook_resid_mid"),
            format!("Residual add after attention, {block}, {at}"),
            btc(c, "C"),
            "x = x + self.attn(self.ln_1(x))",
            "What attention computed, added to the stream it read.".into(),
        )
        .strip(row(hooked, &name("hook_resid_mid"), p)),
    );
    let before = format!("before the MLP, {block}, {at}");
    let code = ("self.ln_2(x)", "the stream after attention");
    out.extend(norm_stages(run, hooked, p, (&name("hook_resid_mid"), &name("ln2")), &before, code));
    out.push(
        stage(
            &name("mlp.hook_pre"),
            format!("MLP up-projection, {block}, {at}"),
            btc(4 * c, "4C"),
            "x = self.c_fc(x)",
            format!("A linear map to {} neurons, four times the channels.", 4 * c),
        )
        .strip(row(hooked, &name("mlp.hook_pre"), p)),
    );
    let post = row(hooked, &name("mlp.hook_post"), p);
    let firing = post.iter().filter(|&&x| x > 0.0).count() as f32 / post.len().max(1) as f32;
    let (code, activation) = match cfg.activation {
        Activation::Relu => (
            "x = self.act(x) # nn.ReLU(), python/nanogpt.py",
            "ReLU keeps a neuron's input where it is positive and zeroes it elsewhere",
        ),
        Activation::GeluTanh => (
            "x = self.act(x) # nn.GELU(approximate='tanh'), python/nanogpt.py",
            "GELU (its tanh form) lets positive inputs through and squashes negative ones towards 0",
        ),
        Activation::Gelu => {
            ("x = self.gelu(x)", "GELU lets positive inputs through and squashes negative ones towards 0")
        }
    };
    out.push(
        stage(
            &name("mlp.hook_post"),
            format!("Activation: which neurons fire, {block}, {at}"),
            btc(4 * c, "4C"),
            code,
            format!("{activation}: the neurons that fire here."),
        )
        .strip(post)
        .noting("share of neurons firing", firing),
    );
    out.push(
        stage(
            &name("hook_mlp_out"),
            format!("MLP down-projection, {block}, {at}"),
            btc(c, "C"),
            "x = self.c_proj(x)",
            "A linear map back to the channels: what the MLP adds to the stream.".into(),
        )
        .strip(row(hooked, &name("hook_mlp_out"), p)),
    );
    out.push(
        stage(
            &name("hook_resid_post"),
            format!("Residual add after the MLP, {block}, {at}"),
            btc(c, "C"),
            "x = x + self.mlp(self.ln_2(x))",
            format!("The stream leaving {block}."),
        )
        .strip(row(hooked, &name("hook_resid_post"), p)),
    );
    out
}

/// Head `h` of layer `l`'s attention probabilities (T × T).
pub(super) fn head_pattern(hooked: &Hooked, l: usize, h: usize, nh: usize, t: usize) -> Vec<f32> {
    let at = (l * nh + h) * t * t;
    hooked.pattern.get(at..at + t * t).map_or_else(Vec::new, <[f32]>::to_vec)
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
