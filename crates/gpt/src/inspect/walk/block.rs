//! The block the walk opens, stage by stage at the position followed: its norm, the head's
//! queries, keys and values at every position, their scores, the softmax, the weighted sum, the
//! heads together, the projection and the MLP; and a norm's two stages, which the final norm
//! shares.

use super::names::{activation_line, qkv_hook, INSIDE_ATTENTION, OUR_MODEL, QK_NORM_LINE, ROPE_LINE};
use super::sequence::Followed;
use super::stage::{columns, row, stage, Stage};
use crate::config::Architecture;
use crate::model::Hooked;
use crate::ops::NormKind;
use crate::Run;

/// A norm's two stages at position `p`: the stream `input` normalised (its mean and spread
/// noted), then scaled channel by channel by its gain (and for a LayerNorm with biases shifted),
/// the module `module`'s output (`ln_final`, `blocks.0.ln1`).
pub(super) fn norm_stages(
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

/// The opened block's stages: its norm, the head's attention in full, the heads together, and
/// the MLP.
pub(super) fn opened_block(run: &Run, f: &Followed, hooked: &Hooked) -> Vec<Stage> {
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
    let ours = Architecture::of(cfg) == Architecture::Ours;
    for (k, (part, noun, what)) in parts.into_iter().enumerate() {
        out.push(
            stage(
                &qkv_hook(cfg, l, part),
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
    // The head's query and key after a change both go through (QK-norm, RoPE), from its hooks;
    // TransformerLens's bridge over our modelling code has none for them (it happens inside its
    // attention).
    let query_and_key = |values: &[f32], hook: &dyn Fn(&str) -> String, change: &str, line: &str, note: &str| {
        let stage_of = |(k, part): (usize, &str)| {
            let (hook, note) = if ours {
                (String::new(), format!("{note} {INSIDE_ATTENTION}"))
            } else {
                (name(&hook(part)), note.to_string())
            };
            stage(&hook, format!("{} {change}, {head}", part.to_uppercase()), bnth.clone(), line, note).matrix(
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
            "after QK-norm",
            &format!("{QK_NORM_LINE} # {OUR_MODEL}"),
            "Each query and key divided by its root mean square, so their dot products stay in range.",
        ));
        last = normed;
    }
    if cfg.rope {
        let rotated = hooked.get(&name("attn.hook_rot_q")).map_or(vec![], |v| v.values.clone());
        out.extend(query_and_key(
            &rotated,
            &|part| format!("attn.hook_rot_{part}"),
            "turned by position (RoPE)",
            &format!("{ROPE_LINE} # {OUR_MODEL}"),
            "Each pair of channels turned by an angle that grows with the position: a query and a key then meet at \
             an angle set by how far apart they are.",
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
    let scores_what = "How well each query matches each key, divided by the square root of the head size. Cells \
                       above the diagonal are masked to −∞ (att.masked_fill(... float('-inf')), as TransformerLens \
                       holds them): a position never sees a later one, since the softmax turns −∞ into a weight of 0.";
    // On our modelling code the bridge's hook_attn_scores holds the pattern: no hook holds the scores.
    let (scores_hook, scores_what) = if ours {
        (String::new(), format!("{scores_what} {INSIDE_ATTENTION} (Its hook_attn_scores holds the softmax's output.)"))
    } else {
        (name("attn.hook_attn_scores"), scores_what.to_string())
    };
    let mut scores_stage = stage(
        &scores_hook,
        format!("Scores q·k / √{hs}, {head}"),
        format!("(B, nh, T, T) = (1, {nh}, {t}, {t})"),
        "att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))",
        scores_what,
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
    let (code, activation) = activation_line(cfg.activation);
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
fn head_pattern(hooked: &Hooked, l: usize, h: usize, nh: usize, t: usize) -> Vec<f32> {
    let at = (l * nh + h) * t * t;
    hooked.pattern.get(at..at + t * t).map_or_else(Vec::new, <[f32]>::to_vec)
}
