//! One training step on the sequence followed, looked at from inside: the loss at the position
//! (−log p(target)), its gradient at the logits (p − onehot) and back through each stage to the
//! opened head's queries, keys and values and to the embeddings; each weight's gradient; and the
//! optimiser's update, applied as training applies it to copies of the weights and the
//! optimiser, with the loss before and after. The run itself does not move.

use super::forward::LOGITS;
use super::names::{activation_line, qkv_hook, OUR_MODEL, QK_NORM_LINE, ROPE_LINE};
use super::sequence::Followed;
use super::stage::columns;
use super::stage::{stage, Stage};
use crate::error::Result;
use crate::model::{Hooked, GPT};
use crate::ops::IGNORE;
use crate::optim::{clip_coefficient, optimizer_named, ParamRate};
use crate::sample::NextToken;
use crate::words::{fixed, walk as words, Words};
use crate::Run;
use serde::Serialize;

/// The training step on the sequence followed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Backward {
    /// The token taught at the position (its probability at temperature 1, where the loss is
    /// counted), and the loss there, −log p(target).
    pub target: NextToken,
    pub loss: f32,
    /// The loss's gradient at each stage, from the logits back to the embeddings, as the backward
    /// pass computes it: before clipping.
    pub stages: Vec<Stage>,
    /// Each weight's gradient and the update the optimiser makes to it.
    pub params: Vec<ParamStep>,
    /// The optimiser chosen (`adamw`, `muon`), and each optimiser's part of the step: Muon's runs
    /// alongside AdamW's, which trains the embeddings, norms and biases.
    pub optimizer: String,
    pub rates: Vec<OptimizerRate>,
    /// The gradients' norm before clipping, the norm they are clipped to (0: no clipping), and
    /// what clipping multiplied them by (1: they were within it).
    pub grad_norm: f32,
    pub grad_clip: f32,
    pub clip_scale: f32,
    /// The loss at the position with the updated weights.
    pub loss_after: f32,
}

/// One optimiser's part of a training step: its rate there, along the schedule, and how many
/// weights it moved.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct OptimizerRate {
    pub optimizer: String,
    pub title: String,
    pub lr: f32,
    pub weights: usize,
    /// Whether each of its weights moves at `lr` times a scale of its shape (Muon's
    /// √max(1, rows / columns)).
    pub shape_scaled: bool,
}

/// One weight matrix (or vector) in a training step: the optimiser that moved it and its rate,
/// and the norms of its gradient (before clipping), of the update, and of the weight itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ParamStep {
    pub name: String,
    pub shape: Vec<usize>,
    pub optimizer: String,
    pub lr: f32,
    pub grad_norm: f32,
    pub update_norm: f32,
    pub weight_norm: f32,
}

/// Each optimiser's part of a step, in the order the weights first name them.
fn group_rates(rates: &[ParamRate]) -> Vec<OptimizerRate> {
    let mut groups: Vec<OptimizerRate> = vec![];
    for r in rates {
        match groups.iter_mut().find(|g| g.optimizer == r.optimizer) {
            Some(g) => {
                g.weights += 1;
                g.shape_scaled |= r.lr != r.base;
            }
            None => groups.push(OptimizerRate {
                optimizer: r.optimizer.into(),
                title: optimizer_named(r.optimizer).map_or(r.optimizer, |k| k.title).into(),
                lr: r.base,
                weights: 1,
                shape_scaled: r.lr != r.base,
            }),
        }
    }
    groups
}

fn norm(xs: impl Iterator<Item = f32>) -> f32 {
    xs.map(|x| x * x).sum::<f32>().sqrt()
}

/// The gradient at row `p` of a hook point's (1, T, D) value.
fn grad_row(hooked: &Hooked, name: &str, p: usize) -> Vec<f32> {
    let Some(v) = hooked.get(name) else { return vec![] };
    let d = v.values.len() / hooked.t.max(1);
    v.grads.as_ref().and_then(|g| g.get(p * d..(p + 1) * d)).map_or_else(|| vec![0.0; d], <[f32]>::to_vec)
}

/// The gradient of a whole (1, T, D) value, (T × D).
fn grads(hooked: &Hooked, name: &str) -> Vec<f32> {
    hooked.get(name).map_or(vec![], |v| v.grads.clone().unwrap_or_else(|| vec![0.0; v.values.len()]))
}

/// The training step of the walk.
pub(super) fn step(run: &Run, f: &Followed, hooked: &Hooked) -> Result<Backward> {
    let model = run.model();
    let cfg = model.config();
    let (t, c, p, l, h) = (f.ids.len(), cfg.n_embd, f.position, f.layer, f.head);
    let hs = c / cfg.n_head;
    let loss = hooked.loss.unwrap_or(f32::NAN);
    let stepped = run.trainer.step_on_copy(hooked.param_grads.clone(), loss)?;
    let grad_clip = run.train_config().grad_clip;
    let clip_scale = if grad_clip > 0.0 { clip_coefficient(stepped.grad_norm, grad_clip) } else { 1.0 };
    let at = words::at(p, format!("{:?}", f.tokens[p]));
    let btc = |width: usize, dim: &str| format!("(B, T, {dim}) = (1, {t}, {width})");
    // Each gradient as the backward pass computes it; where the step clipped, its norm both ways.
    let clipped = |s: Stage| {
        let shown = norm(s.values.iter().copied());
        let s = s.noting(words::norm(), shown);
        if clip_scale < 1.0 {
            s.noting(words::clipped_norm(), shown * clip_scale)
        } else {
            s
        }
    };
    let grad_strip = |hook: &str, title: Words, code: &str, what: Words| {
        let width = grad_row(hooked, hook, p).len();
        clipped(
            stage(hook, title, btc(width, if width == c { "C" } else { "4C" }), code, what)
                .strip(grad_row(hooked, hook, p)),
        )
    };
    let mut stages = vec![clipped(
        stage(
            LOGITS,
            words::logits_grad_title(at.clone()),
            btc(cfg.vocab_size, "V"),
            "loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1); loss.backward()",
            words::logits_grad_what(
                format!("{:?}", f.target.token),
                fixed(f64::from(loss), 4),
                fixed(f64::from(f.target.prob), 4),
            ),
        )
        .strip(grad_row(hooked, "logits", p)),
    )];
    stages.push(grad_strip(
        "ln_final.hook_out",
        words::output_layer_title(at.clone()),
        "logits = self.lm_head(x)",
        words::output_layer_what(),
    ));
    let (activation_code, _) = activation_line(cfg.activation);
    // Back through the scores, and before them whatever changed the queries and keys.
    let mut query_key_code =
        "y = att @ v; att = F.softmax(att, dim=-1); att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))"
            .to_string();
    if cfg.rope {
        query_key_code += &format!("; {ROPE_LINE}");
    }
    if cfg.qk_norm {
        query_key_code += &format!("; {QK_NORM_LINE}");
    }
    if cfg.rope || cfg.qk_norm {
        query_key_code += &format!(" # {OUR_MODEL}");
    }
    let changes = match (cfg.rope, cfg.qk_norm) {
        (true, true) => "both",
        (true, false) => "rope",
        (false, true) => "qk_norm",
        (false, false) => "none",
    };
    for layer in (0..cfg.n_layer).rev() {
        let name = |hook: &str| format!("blocks.{layer}.{hook}");
        stages.push(grad_strip(
            &name("hook_resid_post"),
            words::leaving_title(layer + 1, at.clone()),
            "x = x + self.mlp(self.ln_2(x))",
            words::leaving_what(),
        ));
        if layer != l {
            continue;
        }
        stages.push(grad_strip(
            &name("mlp.hook_post"),
            words::down_grad_title(layer + 1, at.clone()),
            "x = self.c_proj(x)",
            words::down_grad_what(),
        ));
        stages.push(grad_strip(
            &name("mlp.hook_pre"),
            words::activation_grad_title(layer + 1, at.clone()),
            activation_code,
            words::activation_grad_what(),
        ));
        stages.push(grad_strip(
            &name("hook_resid_mid"),
            words::middle_title(layer + 1, at.clone()),
            "x = x + self.attn(self.ln_1(x))",
            words::middle_what(),
        ));
        let z = grads(hooked, &name("attn.hook_z"));
        stages.push(clipped(
            stage(
                &name("attn.hook_z"),
                words::head_output_title(h + 1, layer + 1),
                format!("(B, nh, T, hs) = (1, {}, {t}, {hs})", cfg.n_head),
                "y = self.resid_dropout(self.c_proj(y))",
                words::head_output_what(),
            )
            .matrix(hs, columns(&z, t, h * hs, hs), f.tokens.clone(), Some(p)),
        ));
        let qkv = grads(hooked, &name("attn.hook_qkv"));
        for (k, part) in ["q", "k", "v"].into_iter().enumerate() {
            let code = if part == "v" { "y = att @ v" } else { query_key_code.as_str() };
            stages.push(clipped(
                stage(
                    &qkv_hook(cfg, layer, part),
                    words::qkv_grad_title(part),
                    format!("(B, nh, T, hs) = (1, {}, {t}, {hs})", cfg.n_head),
                    code,
                    words::qkv_grad_what(part, changes),
                )
                .matrix(hs, columns(&qkv, t, k * c + h * hs, hs), f.tokens.clone(), Some(p)),
            ));
        }
        stages.push(grad_strip(
            &name("hook_resid_pre"),
            words::entering_title(layer + 1, at.clone()),
            "x = x + self.attn(self.ln_1(x))",
            words::entering_what(),
        ));
    }
    stages.push(clipped(
        stage(
            "hook_embed",
            words::embeddings_title(),
            btc(c, "C"),
            "tok_emb = self.transformer.wte(idx)",
            words::embeddings_what(),
        )
        .matrix(c, grads(hooked, "hook_embed"), f.tokens.clone(), Some(p)),
    ));
    let params = model.params();
    let at_offsets = params.flat_parts().map(|(at, _)| at);
    let steps = params
        .names
        .iter()
        .zip(&params.values)
        .zip(&stepped.params.values)
        .zip(at_offsets.zip(&stepped.rates))
        .map(|(((name, before), after), (at, rate))| ParamStep {
            name: name.clone(),
            shape: before.shape().to_vec(),
            optimizer: rate.optimizer.into(),
            lr: rate.lr,
            grad_norm: norm(hooked.param_grads[at..at + before.len()].iter().copied()),
            update_norm: norm(before.iter().zip(after.iter()).map(|(a, b)| b - a)),
            weight_norm: norm(before.iter().copied()),
        })
        .collect();
    let mut after = GPT::new(cfg.clone(), 0)?;
    *after.params_mut() = stepped.params;
    let mut targets = vec![IGNORE; t];
    targets[p] = f.target.id as usize;
    let ids: Vec<usize> = f.ids.iter().map(|&i| i as usize).collect();
    let loss_after = after.loss(&ids, &targets, 1, t)?;
    Ok(Backward {
        target: f.target.clone(),
        loss,
        stages,
        params: steps,
        optimizer: run.train_config().optimizer.clone(),
        rates: group_rates(&stepped.rates),
        grad_norm: stepped.grad_norm,
        grad_clip,
        clip_scale,
        loss_after,
    })
}
