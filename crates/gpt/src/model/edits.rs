//! Changes to a forward pass that test what one part of the model does: a head's or an MLP's
//! output replaced (ablation, by zeros or by its mean; patching, by its value on another input),
//! or the residual stream at one position replaced. TransformerLens does the same with hooks on
//! `hook_z`, `hook_mlp_out` and `hook_resid_pre`.

use crate::autograd::{Backward, Grads, Graph, Var};
use crate::words::views;
use crate::workspace::Workspace;
use ndarray::ArrayD;
use serde::{Deserialize, Serialize};

/// A part of the model whose output an edit replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Site {
    /// A head's output (its share of the channels before the layer's output projection).
    Head { layer: usize, head: usize },
    /// A layer's MLP output.
    Mlp { layer: usize },
    /// The residual stream entering block `layer`, at one position.
    Residual { layer: usize, position: usize },
}

/// One replacement: `with` holds the site's new value, a row per position from the first (a
/// head's size, or the model's channels, wide); a residual edit holds one row. Every row of a
/// batch gets the same.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub site: Site,
    pub with: Vec<f32>,
}

impl Site {
    /// The layer the site is in.
    pub fn layer(&self) -> usize {
        match *self {
            Site::Head { layer, .. } | Site::Mlp { layer } | Site::Residual { layer, .. } => layer,
        }
    }

    /// A short name for messages and tables, counting from 1 as the page does (TransformerLens
    /// counts from 0): `L1H2`, `MLP1`, `stream into L1 at 4`.
    pub fn label(&self) -> String {
        match *self {
            Site::Head { layer, head } => format!("L{}H{}", layer + 1, head + 1),
            Site::Mlp { layer } => format!("MLP{}", layer + 1),
            Site::Residual { layer, position } => format!("stream into L{} at {}", layer + 1, position + 1),
        }
    }

    /// The site a label names (`L1H2`, `MLP1`), if it names a head or an MLP.
    pub fn parse(label: &str) -> Option<Site> {
        let number = |s: &str| s.parse::<usize>().ok().filter(|&n| n >= 1).map(|n| n - 1);
        let upper = label.trim().to_ascii_uppercase();
        if let Some(layer) = upper.strip_prefix("MLP") {
            return Some(Site::Mlp { layer: number(layer)? });
        }
        let (layer, head) = upper.strip_prefix('L')?.split_once('H')?;
        Some(Site::Head { layer: number(layer)?, head: number(head)? })
    }
}

/// Head `head`'s channels (`head_size` wide) of each row of `values` (heads side by side in rows
/// of `c`), one after another: the value a head edit takes.
pub fn head_columns(values: &[f32], c: usize, head: usize, head_size: usize) -> Vec<f32> {
    let at = head * head_size..(head + 1) * head_size;
    values.chunks_exact(c).flat_map(|row| row[at.clone()].iter().copied()).collect()
}

/// An edited (or given) value passes no gradient: edits are for looking, never for training.
pub(super) struct Edited;

impl Backward for Edited {
    fn backward(&self, inputs: &[&ArrayD<f32>], _: &ArrayD<f32>, _: ArrayD<f32>, _: &Workspace) -> Grads {
        inputs.iter().map(|_| None).collect()
    }
}

/// `value` as a value of the pass of shape `shape`, given rather than computed: it passes no
/// gradient (a stream a pass resumes from, embeddings put in place of the computed ones).
pub(super) fn given(g: &mut Graph, shape: &[usize], value: &[f32]) -> Var {
    let mut out = g.ws().array(shape);
    out.as_slice_mut().expect("fresh array").copy_from_slice(value);
    g.push(out, vec![], Edited)
}

/// `v` (B, T, C) with the edits of `edits` that `applies` picks written in; `v` itself when none
/// applies. `head_size` places a head's channels.
pub(crate) fn apply(g: &mut Graph, v: Var, edits: &[Edit], head_size: usize, applies: impl Fn(&Site) -> bool) -> Var {
    let mut chosen = edits.iter().filter(|e| applies(&e.site)).peekable();
    if chosen.peek().is_none() {
        return v;
    }
    let mut out = g.ws().copy(g.value(v));
    let &[_, t, c] = out.shape() else { panic!("edits apply to (B, T, C) values") };
    let values = out.as_slice_mut().expect("fresh array");
    for edit in chosen {
        let (offset, width, positions) = match edit.site {
            Site::Head { head, .. } => (head * head_size, head_size, 0..t),
            Site::Mlp { .. } => (0, c, 0..t),
            Site::Residual { position, .. } => (0, c, position..position + 1),
        };
        for row in values.chunks_exact_mut(t * c) {
            for (i, p) in positions.clone().enumerate() {
                let from = &edit.with[i * width..(i + 1) * width];
                row[p * c + offset..p * c + offset + width].copy_from_slice(from);
            }
        }
    }
    g.push(out, vec![v], Edited)
}

impl Site {
    /// Checks that the site is a part of a model shaped by `config` reading `t` positions; its
    /// value's width and rows.
    pub fn check(&self, config: &crate::GPTConfig, t: usize) -> crate::error::Result<(usize, usize)> {
        let (layers, c) = (config.n_layer, config.n_embd);
        let (fits, width, rows) = match *self {
            Site::Head { layer, head } => (layer < layers && head < config.n_head, c / config.n_head, t),
            Site::Mlp { layer } => (layer < layers, c, t),
            Site::Residual { layer, position } => (layer <= layers && position < t, c, 1),
        };
        if !fits {
            return Err(crate::error::Error::Data(views::not_a_part(self.label(), layers, config.n_head, t)));
        }
        Ok((width, rows))
    }
}

/// Checks that every edit names a part of a model shaped by `config` and holds a value for each
/// of the `t` positions it replaces.
pub(crate) fn check(edits: &[Edit], config: &crate::GPTConfig, t: usize) -> crate::error::Result<()> {
    for edit in edits {
        let (width, rows) = edit.site.check(config, t)?;
        if edit.with.len() < width * rows {
            return Err(crate::error::Error::Data(views::edit_width(edit.site.label(), edit.with.len(), width * rows)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Edit, Site};
    use crate::workspace::Workspace;
    use crate::{GPTConfig, GPT};

    fn model() -> GPT {
        let config =
            GPTConfig { vocab_size: 11, block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, ..Default::default() };
        let mut model = GPT::new(config, 3).unwrap();
        // Biases away from zero, so that an ablation that drops them would show.
        let params = model.params_mut();
        for (name, value) in params.names.iter().zip(params.values.iter_mut()) {
            if name.ends_with("bias") {
                value.iter_mut().enumerate().for_each(|(i, x)| *x = 0.01 * (i as f32 - 3.0));
            }
        }
        model
    }

    /// `model` with `change` made to its parameter `name`.
    fn changed(name: &str, change: impl Fn(&mut ndarray::ArrayD<f32>)) -> GPT {
        let mut model = model();
        let i = model.params().index(name).unwrap();
        change(&mut model.params_mut().values[i]);
        model
    }

    const IDS: [usize; 8] = [1, 5, 2, 9, 3, 3, 7, 1];
    const TARGETS: [usize; 8] = [5, 2, 9, 3, 3, 7, 1, 0];

    fn score(model: &GPT, edits: &[Edit]) -> (f32, Vec<bool>) {
        let batch = crate::Batch { idx: &IDS, targets: &TARGETS, b: 2, t: 4 };
        model.score_edited(&Workspace::default(), batch, edits).unwrap()
    }

    #[test]
    fn a_zeroed_head_or_mlp_is_the_model_without_its_weights() {
        let zero = |site| Edit { site, with: vec![0.0; 4 * 8] };
        // Head 1 of layer 1: its four columns of the output projection zeroed.
        let without = changed("transformer.h.1.attn.c_proj.weight", |w| {
            w.rows_mut().into_iter().for_each(|mut row| row.iter_mut().skip(4).for_each(|x| *x = 0.0))
        });
        assert_eq!(score(&model(), &[zero(Site::Head { layer: 1, head: 1 })]), score(&without, &[]));
        // Layer 0's MLP: its output projection and bias zeroed.
        let mut without = changed("transformer.h.0.mlp.c_proj.weight", |w| w.fill(0.0));
        let bias = without.params().index("transformer.h.0.mlp.c_proj.bias").unwrap();
        without.params_mut().values[bias].fill(0.0);
        assert_eq!(score(&model(), &[zero(Site::Mlp { layer: 0 })]), score(&without, &[]));
        assert_ne!(score(&model(), &[]).0, score(&without, &[]).0, "the edit changed something");
    }

    #[test]
    fn the_clean_stream_patched_in_where_inputs_differ_gives_the_clean_run() {
        let model = model();
        let (clean, corrupted) = ([1, 5, 2, 9, 3], [1, 5, 4, 9, 3]);
        let trace = model.trace(&clean).unwrap();
        let with = trace.residual[0][2 * 8..3 * 8].to_vec();
        let patched =
            model.trace_edited(&corrupted, 1, 5, &[Edit { site: Site::Residual { layer: 0, position: 2 }, with }]);
        assert_eq!(patched.unwrap().logits, trace.logits);
        let too_far = Edit { site: Site::Residual { layer: 0, position: 5 }, with: vec![0.0; 8] };
        assert!(model
            .trace_edited(&corrupted, 1, 5, &[too_far])
            .unwrap_err()
            .to_string()
            .contains("not a part of this model"));
        let short = Edit { site: Site::Head { layer: 0, head: 0 }, with: vec![0.0; 3] };
        assert!(model
            .trace_edited(&corrupted, 1, 5, &[short])
            .unwrap_err()
            .to_string()
            .contains("has 3 numbers, not 20"));
    }
}
