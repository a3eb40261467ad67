//! The block the walk opens, stage by stage at the position followed: its norm, the head's
//! queries, keys and values at every position, their scores, the softmax, the weighted sum, the
//! heads together, the projection and the MLP; and a norm's two stages, which the final norm
//! shares.

use super::names::{activation_line, qkv_hook, OUR_MODEL, QK_NORM_LINE, ROPE_LINE};
use super::sequence::Followed;
use super::stage::{columns, row, stage, Stage};
use crate::config::Architecture;
use crate::model::Hooked;
use crate::ops::NormKind;
use crate::words::{walk as words, Words};
use crate::Run;

/// A norm's two stages at position `p`: the stream `input` normalised (its mean and spread
/// noted), then scaled channel by channel by its gain (and for a LayerNorm with biases shifted),
/// the module `module`'s output (`ln_final`, `blocks.0.ln1`).
pub(super) fn norm_stages(
    run: &Run,
    hooked: &Hooked,
    p: usize,
    (input, module): (&str, &str),
    place: Words,
    (code, input_words): (&str, Words),
) -> [Stage; 2] {
    let cfg = run.model().config();
    let x = row(hooked, input, p);
    let rms = cfg.norm == NormKind::RmsNorm;
    let mut normalised = vec![0.0; x.len()];
    let (mean, scale) = crate::ops::norm::normalize_row(!rms, &x, &vec![1.0; x.len()], None, &mut normalised);
    let shape = format!("(B, T, C) = (1, {}, {})", hooked.t, cfg.n_embd);
    let normalised = stage(
        &format!("{module}.hook_normalized"),
        words::normalised_title(place.clone()),
        shape.clone(),
        if rms { "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) # python/nanogpt.py" } else { code },
        words::normalised_what(input_words, rms),
    )
    .strip(normalised);
    let normalised = if rms { normalised } else { normalised.noting(words::stream_mean(), mean) };
    let out =
        stage(&format!("{module}.hook_out"), words::gain_title(place), shape, code, words::gain_what(cfg.bias && !rms))
            .strip(row(hooked, &format!("{module}.hook_out"), p));
    [normalised.noting(if rms { words::stream_rms() } else { words::stream_spread() }, 1.0 / scale), out]
}

/// The opened block's stages: its norm, the head's attention in full, the heads together, and
/// the MLP.
pub(super) fn opened_block(run: &Run, f: &Followed, hooked: &Hooked) -> Vec<Stage> {
    let cfg = run.model().config();
    let (t, c, p, l, h) = (f.ids.len(), cfg.n_embd, f.position, f.layer, f.head);
    let (nh, hs) = (cfg.n_head, cfg.n_embd / cfg.n_head);
    let at = words::at(p, format!("{:?}", f.tokens[p]));
    let name = |hook: &str| format!("blocks.{l}.{hook}");
    let block = words::block(l + 1);
    let head = words::head(h + 1, l + 1);
    let btc = |width: usize, dim: &str| format!("(B, T, {dim}) = (1, {t}, {width})");
    let bnth = format!("(B, nh, T, hs) = (1, {nh}, {t}, {hs})");
    let tokens = f.tokens.clone();
    let mut out = vec![];
    let ln1 = name("ln1");
    let before = words::before_attention(block.clone(), at.clone());
    let code = ("self.ln_1(x)", words::block_input());
    out.extend(norm_stages(run, hooked, p, (&name("hook_resid_pre"), &ln1), before, code));
    let qkv = hooked.get(&name("attn.hook_qkv")).map_or(vec![], |v| v.values.clone());
    let ours = Architecture::of(cfg) == Architecture::Ours;
    for (k, part) in ["q", "k", "v"].into_iter().enumerate() {
        out.push(
            stage(
                &qkv_hook(cfg, l, part),
                words::qkv_title(part, head.clone()),
                bnth.clone(),
                &format!("{part} = {part}.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)"),
                words::qkv_what(part, hs, 3 * c),
            )
            .matrix(hs, columns(&qkv, t, k * c + h * hs, hs), tokens.clone(), Some(p)),
        );
    }
    // The head's query and key after a change both go through (QK-norm, RoPE), from its hooks;
    // TransformerLens's bridge over our modelling code has none for them (it happens inside its
    // attention).
    let query_and_key =
        |values: &[f32], hook: &dyn Fn(&str) -> String, title: &dyn Fn(&str) -> Words, line: &str, note: Words| {
            let stage_of = |(k, part): (usize, &str)| {
                let hook = if ours { String::new() } else { name(&hook(part)) };
                stage(&hook, title(part), bnth.clone(), line, note.clone()).matrix(
                    hs,
                    columns(values, t, k * c + h * hs, hs),
                    tokens.clone(),
                    Some(p),
                )
            };
            ["q", "k"].into_iter().enumerate().map(stage_of).collect::<Vec<_>>()
        };
    let mut last = qkv;
    if cfg.qk_norm {
        let normed = hooked.get(&name("attn.q_norm.hook_normalized")).map_or(vec![], |v| v.values.clone());
        out.extend(query_and_key(
            &normed,
            &|part| format!("attn.{part}_norm.hook_normalized"),
            &|part| words::qk_norm_title(part, head.clone()),
            &format!("{QK_NORM_LINE} # {OUR_MODEL}"),
            words::qk_norm_what(ours),
        ));
        last = normed;
    }
    if cfg.rope {
        let rotated = hooked.get(&name("attn.hook_rot_q")).map_or(vec![], |v| v.values.clone());
        out.extend(query_and_key(
            &rotated,
            &|part| format!("attn.hook_rot_{part}"),
            &|part| words::rope_title(part, head.clone()),
            &format!("{ROPE_LINE} # {OUR_MODEL}"),
            words::rope_what(ours),
        ));
        last = rotated;
    }
    let (q, k) = (columns(&last, t, h * hs, hs), columns(&last, t, c + h * hs, hs));
    let scale = 1.0 / (hs as f32).sqrt();
    let scores: Vec<f32> = (0..t)
        .flat_map(|i| {
            let (q, k) = (&q, &k);
            (0..t).map(move |j| {
                if j > i {
                    f32::NEG_INFINITY
                } else {
                    q[i * hs..(i + 1) * hs].iter().zip(&k[j * hs..(j + 1) * hs]).map(|(a, b)| a * b).sum::<f32>()
                        * scale
                }
            })
        })
        .collect();
    // On our modelling code the bridge's hook_attn_scores holds the pattern: no hook holds the scores.
    let scores_hook = if ours { String::new() } else { name("attn.hook_attn_scores") };
    let mut scores_stage = stage(
        &scores_hook,
        words::scores_title(hs, head.clone()),
        format!("(B, nh, T, T) = (1, {nh}, {t}, {t})"),
        "att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))",
        words::scores_what(ours),
    )
    .matrix(t, scores, tokens.clone(), Some(p));
    scores_stage.causal = true;
    out.push(scores_stage);
    let pattern = head_pattern(hooked, l, h, nh, t);
    let mut pattern_stage = stage(
        &name("attn.hook_pattern"),
        words::pattern_title(head.clone()),
        format!("(B, nh, T, T) = (1, {nh}, {t}, {t})"),
        "att = F.softmax(att, dim=-1)",
        words::pattern_what(p),
    )
    .matrix(t, pattern.clone(), tokens.clone(), Some(p));
    pattern_stage.causal = true;
    out.push(pattern_stage);
    let z = row(hooked, &name("attn.hook_z"), p);
    out.push(
        stage(
            &name("attn.hook_z"),
            words::weighted_title(head, at.clone()),
            bnth.clone(),
            "y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)",
            words::weighted_what(p),
        )
        .strip(z[h * hs..(h + 1) * hs].to_vec()),
    );
    out.push(
        stage(
            &name("attn.hook_z"),
            words::heads_title(block.clone(), at.clone()),
            btc(c, "C"),
            "y = y.transpose(1, 2).contiguous().view(B, T, C) # re-assemble all head outputs side by side",
            words::heads_what(nh, hs),
        )
        .strip(z),
    );
    out.push(
        stage(
            &name("hook_attn_out"),
            words::projection_title(block.clone(), at.clone()),
            btc(c, "C"),
            "y = self.resid_dropout(self.c_proj(y))",
            words::projection_what(),
        )
        .strip(row(hooked, &name("hook_attn_out"), p)),
    );
    out.push(
        stage(
            &name("hook_resid_mid"),
            words::attention_add_title(block.clone(), at.clone()),
            btc(c, "C"),
            "x = x + self.attn(self.ln_1(x))",
            words::attention_add_what(),
        )
        .strip(row(hooked, &name("hook_resid_mid"), p)),
    );
    let before = words::before_mlp(block.clone(), at.clone());
    let code = ("self.ln_2(x)", words::after_attention());
    out.extend(norm_stages(run, hooked, p, (&name("hook_resid_mid"), &name("ln2")), before, code));
    out.push(
        stage(
            &name("mlp.hook_pre"),
            words::up_title(block.clone(), at.clone()),
            btc(4 * c, "4C"),
            "x = self.c_fc(x)",
            words::up_what(4 * c),
        )
        .strip(row(hooked, &name("mlp.hook_pre"), p)),
    );
    let post = row(hooked, &name("mlp.hook_post"), p);
    let firing = post.iter().filter(|&&x| x > 0.0).count() as f32 / post.len().max(1) as f32;
    let (code, activation) = activation_line(cfg.activation);
    out.push(
        stage(
            &name("mlp.hook_post"),
            words::activation_title(block.clone(), at.clone()),
            btc(4 * c, "4C"),
            code,
            words::activation_what(activation),
        )
        .strip(post)
        .noting(words::firing(), firing),
    );
    out.push(
        stage(
            &name("hook_mlp_out"),
            words::down_title(block.clone(), at.clone()),
            btc(c, "C"),
            "x = self.c_proj(x)",
            words::down_what(),
        )
        .strip(row(hooked, &name("hook_mlp_out"), p)),
    );
    out.push(
        stage(
            &name("hook_resid_post"),
            words::mlp_add_title(block.clone(), at),
            btc(c, "C"),
            "x = x + self.mlp(self.ln_2(x))",
            words::mlp_add_what(block),
        )
        .strip(row(hooked, &name("hook_resid_post"), p)),
    );
    out
}

/// Head `h` of layer `l`'s attention probabilities (T × T).
fn head_pattern(hooked: &Hooked, l: usize, h: usize, nh: usize, t: usize) -> Vec<f32> {
    let at = (l * nh + h) * t * t;
    hooked.pattern.get(at..at + t * t).map_or_else(Vec::new, <[f32]>::to_vec)
}
