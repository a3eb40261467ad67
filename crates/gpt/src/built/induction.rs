//! Induction set by hand on the repeat task (`bdcabdca`): a previous-token head in layer 1 that
//! attends by position and writes each position's previous token, and an induction head in layer 2
//! whose query is the current token and whose key is that previous token (K-composition), copying
//! the token it finds through its values into the logits. Every other head and both MLPs are zero.
//!
//! The residual stream holds four blocks of one-hot codes: the token, the position, the previous
//! token and the answer. Every position holds the same values in some order, so each LayerNorm
//! divides every position by the same spread and takes away the same mean: an affine map the
//! weights below undo (`weights::Stats`).

use super::spec::{Built, Truth};
use super::weights::{self, code, embeddings, matrix, no_mlps, Stats, HEAD, LOGIT, MARGIN, WIDTH as C};
use crate::error::Result;
use crate::params::Params;
use crate::settings::Settings;
use crate::work::edge_plan::Corruption;

const LETTERS: usize = 26;
const LENGTH: usize = 16;
const BLOCK: usize = 2 * LENGTH;
/// Where each block of the stream starts.
const TOKEN: usize = 0;
const POSITION: usize = TOKEN + LETTERS;
const PREVIOUS: usize = POSITION + BLOCK;
const ANSWER: usize = PREVIOUS + LETTERS;

pub(super) const INDUCTION: Built = Built {
    name: "induction",
    preset: "induction, built by hand",
    description: "weights set by hand, not trained: a previous-token head (L1H1), and an induction head (L2H1) \
        that reads it through its key and copies the letter it finds. Its circuit is known, so the circuit view \
        scores each way of finding one against it",
    settings,
    weights,
    truth: &[
        Truth { corruption: Corruption::Symbol, edges: &["input->a1.h0<v>", "a1.h0->logits"], backups: &[] },
        Truth {
            corruption: Corruption::Swap,
            edges: &["input->a0.h0<v>", "a0.h0->a1.h0<k>", "input->a1.h0<v>", "a1.h0->logits"],
            backups: &[],
        },
    ],
};

fn settings() -> Settings {
    weights::settings("repeat", serde_json::json!({"length": LENGTH, "symbols": LETTERS}), (LETTERS, BLOCK, 2))
}

fn weights(p: &mut Params) -> Result<()> {
    embeddings(p, (LETTERS, BLOCK), (TOKEN, POSITION))?;
    let first = Stats::of(&[1.0, 1.0], C);
    let after_first: Vec<f32> = [vec![1.0, 1.0], code(LETTERS, first.mean())].concat();
    let second = Stats::of(&after_first, C);
    let last = Stats::of(&[after_first, code(LETTERS, second.mean())].concat(), C);
    // Layer 1, head 1: the query at position t matches the key at t − 1; the value is the token,
    // written into the previous token's block.
    let a = first.match_weight(MARGIN, HEAD);
    let mut cells: Vec<(usize, usize, f32)> = (0..BLOCK).map(|t| (t, POSITION + t, a)).collect();
    cells.extend((1..BLOCK).map(|t| (C + t, POSITION + t - 1, a)));
    cells.extend((0..LETTERS).map(|v| (2 * C + v, TOKEN + v, 1.0)));
    matrix(p, "transformer.h.0.attn.c_attn.weight", (3 * C, C), &cells)?;
    let out: Vec<_> = (0..LETTERS).map(|v| (PREVIOUS + v, v, 1.0 / first.scale)).collect();
    matrix(p, "transformer.h.0.attn.c_proj.weight", (C, C), &out)?;
    // Layer 2, head 1: the query is the token, the key the previous token; the value the token,
    // written into the answer's block.
    let a = second.match_weight(MARGIN, HEAD);
    let mut cells: Vec<(usize, usize, f32)> = (0..LETTERS).map(|v| (v, TOKEN + v, a)).collect();
    cells.extend((0..LETTERS).map(|v| (C + v, PREVIOUS + v, a)));
    // Position 0 has no previous token, and its previous-token head, with nowhere else to look,
    // wrote its own: its key is lowered below any other.
    cells.extend((0..LETTERS).map(|v| (C + v, POSITION, -3.0 * a)));
    cells.extend((0..LETTERS).map(|v| (2 * C + v, TOKEN + v, 1.0)));
    matrix(p, "transformer.h.1.attn.c_attn.weight", (3 * C, C), &cells)?;
    let out: Vec<_> = (0..LETTERS).map(|v| (ANSWER + v, v, 1.0 / second.scale)).collect();
    matrix(p, "transformer.h.1.attn.c_proj.weight", (C, C), &out)?;
    let unembed: Vec<_> = (0..LETTERS).map(|v| (v, ANSWER + v, LOGIT / last.scale)).collect();
    matrix(p, "lm_head.weight", (LETTERS, C), &unembed)?;
    no_mlps(p, 2)
}
