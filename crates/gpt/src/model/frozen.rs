//! The model frozen at one prompt, as circuit tracing freezes it (Ameisen et al. 2025): attention
//! patterns and every norm's scale held at the prompt's values, and no gradient through the MLPs
//! (what they write is a node of the graph: a transcoder's features and its error), but through a
//! skip transcoder's linear skip connection, as circuit-tracer lets it. So frozen, the
//! model is linear in the residual stream, and a reader's direction back-propagated through it
//! gives, at each place something writes, the direct effect of a unit written there: through the
//! residual connections and the heads' OV circuits only.

use super::gpt::GPT;
use super::hooked::Hooked;
use crate::error::Result;
use crate::ops::gemm::gemm;
use ndarray::{s, ArrayView2, ArrayViewMut2};

/// Where a reader reads the stream in the frozen model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrozenRead {
    /// What block `layer`'s MLP reads (`blocks.{layer}.ln2.hook_normalized`): a transcoder feature's
    /// encoder reads it.
    MlpIn { layer: usize },
    /// What block `layer`'s heads read (`blocks.{layer}.ln1.hook_normalized`): a query's or a
    /// key's projection reads it.
    AttnIn { layer: usize },
    /// What the unembedding reads (`ln_final.hook_normalized`).
    Logits,
}

/// One prompt's pass with what freezing keeps: each norm's reciprocal scale at each position and
/// every attention pattern.
#[derive(Clone, Debug)]
pub struct FrozenPass {
    /// The pass's named values (`blocks.{l}.ln2.hook_out`, `blocks.{l}.hook_mlp_out`, `logits`, …).
    pub hooked: Hooked,
    /// Block by block, ln_1's and ln_2's reciprocal scale at each position; then ln_f's.
    ln_1: Vec<Vec<f32>>,
    ln_2: Vec<Vec<f32>>,
    ln_f: Vec<f32>,
}

impl FrozenPass {
    /// Positions of the prompt.
    pub fn t(&self) -> usize {
        self.hooked.t
    }
}

impl GPT {
    /// `idx` (one sequence) run in evaluation mode, with what freezing the model at it keeps.
    pub fn freeze(&self, idx: &[usize]) -> Result<FrozenPass> {
        let hooked = self.hooked(idx, None)?;
        let params = &self.params().values;
        let value = |name: String| &hooked.get(&name).expect("every block is hooked").values;
        let ln_1 = self.blocks.iter().enumerate();
        let ln_1 = ln_1.map(|(l, b)| b.ln_1.scales(params, value(format!("blocks.{l}.hook_resid_pre")))).collect();
        let ln_2 = self.blocks.iter().enumerate();
        let ln_2 = ln_2.map(|(l, b)| b.ln_2.scales(params, value(format!("blocks.{l}.hook_resid_mid")))).collect();
        let ln_f = self.ln_f.scales(params, value(super::extras::FINAL_STREAM.into()));
        Ok(FrozenPass { ln_1, ln_2, ln_f, hooked })
    }

    /// Back-propagates readers through the model frozen at `frozen`: reader `i` reads `reads[i]`
    /// (where, and at which position) along `directions[i]` (a row of C, in the norm's output
    /// space: an encoder's column, an unembedding row, a query's or key's projection). Calls `write(Some(layer), g, t)` with every
    /// reader's gradient at block `layer`'s MLP output, (n, t, C) for the first `t` positions (a
    /// reader reaches no later one), from the highest block any reader reads above down, then
    /// `write(None, g, t)` at the embeddings. `skips[layer]`, where there is one, is block
    /// `layer`'s skip connection (C, C: out by in), a linear path from what its MLP reads to what it writes.
    pub fn frozen_backward(
        &self,
        frozen: &FrozenPass,
        reads: &[(FrozenRead, usize)],
        directions: &[f32],
        skips: &[Option<&[f32]>],
        write: &mut WriteSink,
    ) {
        self.backward_through(frozen, (reads, directions), skips, write, &mut |_, _, _| {});
    }

    /// `frozen_backward`, calling `middle(layer, g, t)` with the readers' gradient at each block's
    /// middle (what its heads' output is added to) before it goes through the heads.
    pub(super) fn backward_through(
        &self,
        frozen: &FrozenPass,
        (reads, directions): (&[(FrozenRead, usize)], &[f32]),
        skips: &[Option<&[f32]>],
        write: &mut WriteSink,
        middle: &mut dyn FnMut(usize, &mut [f32], usize),
    ) {
        let (c, n, layers) = (self.config().n_embd, reads.len(), self.blocks.len());
        // Causal attention carries a gradient only to earlier positions, and nothing reads above
        // the highest reader.
        let t = reads.iter().map(|&(_, pos)| pos + 1).max().unwrap_or(0);
        let top = reads.iter().map(|&(read, _)| match read {
            FrozenRead::Logits => layers,
            FrozenRead::MlpIn { layer } | FrozenRead::AttnIn { layer } => layer + 1,
        });
        let top = top.max().unwrap_or(0);
        let params = &self.params().values;
        let mut g = vec![0.0; n * t * c];
        let inject = |g: &mut [f32], at: FrozenRead| {
            for (i, ((read, pos), direction)) in reads.iter().zip(directions.chunks_exact(c)).enumerate() {
                if *read != at {
                    continue;
                }
                let row = &mut g[(i * t + pos) * c..(i * t + pos + 1) * c];
                match at {
                    FrozenRead::Logits => self.ln_f.frozen_grad(params, frozen.ln_f[*pos], direction, row),
                    FrozenRead::MlpIn { layer } => {
                        self.blocks[layer].ln_2.frozen_grad(params, frozen.ln_2[layer][*pos], direction, row)
                    }
                    FrozenRead::AttnIn { layer } => {
                        self.blocks[layer].ln_1.frozen_grad(params, frozen.ln_1[layer][*pos], direction, row)
                    }
                }
            }
        };
        inject(&mut g, FrozenRead::Logits);
        let mut scratch = [vec![0.0; n * t * c], vec![0.0; n * t * c], vec![0.0; n * t * c]];
        for layer in (0..top).rev() {
            write(Some(layer), &g, t);
            self.skip_backward(frozen, layer, skips, (&mut g, t), &mut scratch[0]);
            inject(&mut g, FrozenRead::MlpIn { layer });
            middle(layer, &mut g, t);
            self.heads_backward(frozen, (layer, Carry::All), (&mut g, t), None, &mut scratch);
            // What this block's heads read is the stream below them.
            inject(&mut g, FrozenRead::AttnIn { layer });
        }
        write(None, &g, t);
    }

    /// `g` (n, t, C) at block `layer`'s output taken through its skip connection, if it has one,
    /// to its middle (what its MLP reads is there too): the position's own path, row by row.
    pub(super) fn skip_backward(
        &self,
        frozen: &FrozenPass,
        layer: usize,
        skips: &[Option<&[f32]>],
        (g, t): (&mut [f32], usize),
        dz: &mut [f32],
    ) {
        let Some(w_skip) = skips.get(layer).copied().flatten() else { return };
        let c = self.config().n_embd;
        // out += ln_2(x) W_skipᵀ: g at ln_2's output is g W_skip.
        let gv = ArrayView2::from_shape((g.len() / c, c), &g[..]).expect("rows of C");
        let w = ArrayView2::from_shape((c, c), w_skip).expect("(C, C)");
        gemm(1.0, &gv, &w, false, &mut ArrayViewMut2::from_shape((g.len() / c, c), &mut dz[..]).expect("sized"));
        let (params, ln_2) = (&self.params().values, &self.blocks[layer].ln_2);
        for (row, (gr, dr)) in g.chunks_exact_mut(c).zip(dz.chunks_exact(c)).enumerate() {
            ln_2.frozen_grad(params, frozen.ln_2[layer][row % t], dr, gr);
        }
    }

    /// `g` (n, t, C) at block `layer`'s middle taken through its heads (the part `carry` says) and
    /// ln_1 to its input, added to `into` (`None`: to `g`, the residual's own path).
    pub(super) fn heads_backward(
        &self,
        frozen: &FrozenPass,
        (layer, carry): (usize, Carry),
        (g, t): (&mut [f32], usize),
        into: Option<&mut [f32]>,
        [dz, dv, dh]: &mut [Vec<f32>; 3],
    ) {
        self.attention_backward(frozen, layer, carry, (g, t), (dz, dv, dh));
        let (c, params, ln_1) = (self.config().n_embd, &self.params().values, &self.blocks[layer].ln_1);
        for (row, (gr, dr)) in into.unwrap_or(g).chunks_exact_mut(c).zip(dh.chunks_exact(c)).enumerate() {
            ln_1.frozen_grad(params, frozen.ln_1[layer][row % t], dr, gr);
        }
    }

    /// The gradient `dh` at block `layer`'s ln_1 output, given `g` at its attention's output
    /// (n, t, C: the first t positions), through the heads' frozen patterns (the part `carry`
    /// says) and their value and output projections.
    fn attention_backward(
        &self,
        frozen: &FrozenPass,
        layer: usize,
        carry: Carry,
        (g, t): (&[f32], usize),
        (dz, dv, dh): Scratch,
    ) {
        let (c, nh, full) = (self.config().n_embd, self.config().n_head, frozen.t());
        let (rows, hs) = (g.len() / c, c / nh);
        let params = &self.params().values;
        let attn = &self.blocks[layer].attn;
        let proj = ArrayView2::from_shape((c, c), attn.c_proj.weight.slice(params)).expect("(C, C)");
        let qkv = ArrayView2::from_shape((3 * c, c), attn.c_attn.weight.slice(params)).expect("(3C, C)");
        let gv = ArrayView2::from_shape((rows, c), g).expect("rows of C");
        // out = z W_projᵀ: dz = g W_proj.
        gemm(1.0, &gv, &proj, false, &mut ArrayViewMut2::from_shape((rows, c), &mut dz[..]).expect("sized"));
        // z_h[p] = Σ_q A_h[p, q] v_h[q]: dv_h[q] = Σ_p A_h[p, q] dz_h[p].
        dv.fill(0.0);
        let pattern = &frozen.hooked.pattern[layer * nh * full * full..(layer + 1) * nh * full * full];
        for (dz_i, dv_i) in dz.chunks_exact(t * c).zip(dv.chunks_exact_mut(t * c)) {
            for h in (0..nh).filter(|&h| carry.head(h)) {
                let a = &pattern[h * full * full..(h + 1) * full * full];
                for p in 0..t {
                    let from = &dz_i[p * c + h * hs..p * c + (h + 1) * hs];
                    for q in (0..=p).filter(|&q| carry.between(p, q)) {
                        let weight = a[p * full + q];
                        let to = &mut dv_i[q * c + h * hs..q * c + (h + 1) * hs];
                        to.iter_mut().zip(from).for_each(|(d, &f)| *d += weight * f);
                    }
                }
            }
        }
        // v = h W_vᵀ: dh = dv W_v.
        let dvv = ArrayView2::from_shape((rows, c), &dv[..]).expect("rows of C");
        let mut out = ArrayViewMut2::from_shape((rows, c), &mut dh[..]).expect("sized");
        gemm(1.0, &dvv, &qkv.slice(s![2 * c..3 * c, ..]), false, &mut out);
    }
}

/// What hears each reader's gradient where nodes write: at a block's MLP output (`Some(layer)`)
/// or the embeddings (`None`), (n, t, C) for the first `t` positions.
pub type WriteSink<'a> = dyn FnMut(Option<usize>, &[f32], usize) + 'a;

/// Three buffers of (n, T, C) the attention's backward pass writes: dz, dv and dh.
type Scratch<'a> = (&'a mut [f32], &'a mut [f32], &'a mut [f32]);

/// Which part of a block's attention a backward pass carries: all of it, each position's own
/// (every head's weight from a position to itself), or one head's between positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Carry {
    All,
    Own,
    Across(usize),
}

impl Carry {
    fn head(self, h: usize) -> bool {
        !matches!(self, Carry::Across(head) if head != h)
    }

    /// Whether it carries from position `p` (the reader) to `q` (the read).
    fn between(self, p: usize, q: usize) -> bool {
        match self {
            Carry::All => true,
            Carry::Own => p == q,
            Carry::Across(_) => p != q,
        }
    }
}
