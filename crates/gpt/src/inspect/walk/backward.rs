//! One training step on the sequence followed, looked at from inside: the loss at the position
//! (−log p(target)), its gradient at the logits (p − onehot) and back through each stage to the
//! opened head's queries, keys and values and to the embeddings; each weight's gradient; and the
//! optimiser's update, applied as training applies it to copies of the weights and the
//! optimiser, with the loss before and after. The run itself does not move.

use super::sequence::Followed;
use super::stage::columns;
use super::stage::{stage, Stage};
use crate::error::Result;
use crate::model::{Hooked, GPT};
use crate::ops::IGNORE;
use crate::sample::NextToken;
use crate::Run;
use serde::Serialize;

/// The training step on the sequence followed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Backward {
    /// The token taught at the position, and the loss there, −log p(target).
    pub target: NextToken,
    pub loss: f32,
    /// The loss's gradient at each stage, from the logits back to the embeddings.
    pub stages: Vec<Stage>,
    /// Each weight's gradient and the update the optimiser makes to it.
    pub params: Vec<ParamStep>,
    /// The optimiser (`adamw`, `muon`), its rate this step, the gradients' norm before clipping
    /// and the norm they are clipped to (0: no clipping).
    pub optimizer: String,
    pub lr: f32,
    pub grad_norm: f32,
    pub grad_clip: f32,
    /// The loss at the position with the updated weights.
    pub loss_after: f32,
}

/// One weight matrix (or vector) in a training step: the norms of its gradient, of the
/// optimiser's update to it, and of the weight itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ParamStep {
    pub name: String,
    pub shape: Vec<usize>,
    pub grad_norm: f32,
    pub update_norm: f32,
    pub weight_norm: f32,
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
    let at = format!("at position {p} ({:?})", f.tokens[p]);
    let btc = |width: usize, dim: &str| format!("(B, T, {dim}) = (1, {t}, {width})");
    let grad_strip = |hook: &str, title: String, code: &str, what: &str| {
        let width = grad_row(hooked, hook, p).len();
        stage(hook, title, btc(width, if width == c { "C" } else { "4C" }), code, what.into())
            .strip(grad_row(hooked, hook, p))
    };
    let mut stages = vec![stage(
        "logits",
        format!("dL/dlogits {at}: p − onehot"),
        btc(cfg.vocab_size, "V"),
        "loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1); loss.backward()",
        format!(
            "The loss is −log p({:?}) = {loss:.4}. Its gradient at the logits is each token's probability, less 1 at \
             the target: the step pushes the target's score up and every other down, each by its probability.",
            f.target.token
        ),
    )
    .strip(grad_row(hooked, "logits", p))];
    stages.push(grad_strip(
        "ln_final.hook_out",
        format!("Back through the output layer {at}"),
        "logits = self.lm_head(x)",
        "The gradient at the final norm's output: the output layer's weights carry it back to the channels.",
    ));
    for layer in (0..cfg.n_layer).rev() {
        let name = |hook: &str| format!("blocks.{layer}.{hook}");
        stages.push(grad_strip(
            &name("hook_resid_post"),
            format!("Into the stream leaving block {} {at}", layer + 1),
            "x = x + self.mlp(self.ln_2(x))",
            "A residual add passes the gradient through unchanged to both its inputs: the MLP and the stream before.",
        ));
        if layer != l {
            continue;
        }
        stages.push(grad_strip(
            &name("mlp.hook_post"),
            format!("Back through the MLP's down-projection, block {} {at}", layer + 1),
            "x = self.c_proj(x)",
            "The gradient at each neuron's output.",
        ));
        stages.push(grad_strip(
            &name("mlp.hook_pre"),
            format!("Back through the activation, block {} {at}", layer + 1),
            "x = self.gelu(x) # the model's activation",
            "Only neurons that fired pass it on (fully for ReLU; GELU scales it by its slope).",
        ));
        stages.push(grad_strip(
            &name("hook_resid_mid"),
            format!("Into the stream after attention, block {} {at}", layer + 1),
            "x = x + self.attn(self.ln_1(x))",
            "What the MLP sends back through its norm, added to what comes straight down the stream.",
        ));
        let z = grads(hooked, &name("attn.hook_z"));
        stages.push(
            stage(
                &name("attn.hook_z"),
                format!("Into head {} of layer {}'s output, every position", h + 1, layer + 1),
                format!("(B, nh, T, hs) = (1, {}, {t}, {hs})", cfg.n_head),
                "y = self.resid_dropout(self.c_proj(y))",
                "The output projection hands each head its part of the gradient.".into(),
            )
            .matrix(hs, columns(&z, t, h * hs, hs), f.tokens.clone(), Some(p)),
        );
        let qkv = grads(hooked, &name("attn.hook_qkv"));
        for (k, part, what) in [
            (0, "q", "only the position followed asks, so only its query moves"),
            (1, "k", "each earlier key it attended to moves, more where it attended more"),
            (2, "v", "each earlier value moves by its weight in the position's row"),
        ] {
            stages.push(
                stage(
                    &name(&format!("attn.hook_{part}")),
                    format!("Into the head's {}, every position", ["queries", "keys", "values"][k]),
                    format!("(B, nh, T, hs) = (1, {}, {t}, {hs})", cfg.n_head),
                    "y = att @ v; att = F.softmax(att, dim=-1); att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))",
                    format!("Back through the weighted sum, the softmax and the scores: {what}."),
                )
                .matrix(hs, columns(&qkv, t, k * c + h * hs, hs), f.tokens.clone(), Some(p)),
            );
        }
        stages.push(grad_strip(
            &name("hook_resid_pre"),
            format!("Into the stream entering block {} {at}", layer + 1),
            "x = x + self.attn(self.ln_1(x))",
            "Through the residual path and back through the norm and c_attn, added up.",
        ));
    }
    stages.push(
        stage(
            "hook_embed",
            "Into the token embeddings, every position".into(),
            btc(c, "C"),
            "tok_emb = self.transformer.wte(idx)",
            "How each position's embedding would change: the earlier ones too, through attention. Each row adds \
             into its token's row of the embedding table."
                .into(),
        )
        .matrix(c, grads(hooked, "hook_embed"), f.tokens.clone(), Some(p)),
    );
    let trainer = &run.trainer;
    let stepped = trainer.step_on_copy(hooked.param_grads.clone(), loss)?;
    let params = model.params();
    let at_offsets = params.flat_parts().map(|(at, _)| at);
    let steps = params
        .names
        .iter()
        .zip(&params.values)
        .zip(&stepped.params.values)
        .zip(at_offsets)
        .map(|(((name, before), after), at)| ParamStep {
            name: name.clone(),
            shape: before.shape().to_vec(),
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
        lr: stepped.lr,
        grad_norm: stepped.grad_norm,
        grad_clip: run.train_config().grad_clip,
        loss_after,
    })
}
