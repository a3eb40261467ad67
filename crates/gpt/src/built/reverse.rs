//! Reversal set by hand on the reverse task (`bdca>acdb`), as Tracr compiles RASP's
//! `Aggregate(Select(indices, length − indices − 1, ==), tokens)` with the length fixed: one head
//! whose query at position t matches the key at 2·length − 1 − t (the anti-diagonal, by position
//! alone) and copies that token through its values into the logits. The other head and the MLP
//! are zero. The stream holds the token, the position and the answer as one-hot blocks.

use super::spec::{Built, Truth};
use super::weights::{self, code, embeddings, matrix, no_mlps, Stats, HEAD, LOGIT, MARGIN, WIDTH as C};
use crate::error::Result;
use crate::params::Params;
use crate::settings::Settings;
use crate::work::edge_plan::Corruption;

const LETTERS: usize = 26;
/// The letters and the separator.
const SYMBOLS: usize = LETTERS + 1;
const LENGTH: usize = 12;
const BLOCK: usize = 2 * LENGTH + 1;
/// Where each block of the stream starts.
const TOKEN: usize = 0;
const POSITION: usize = TOKEN + SYMBOLS;
const ANSWER: usize = POSITION + BLOCK;

pub(super) const REVERSE: Built = Built {
    name: "reverse",
    preset: "reverse, built by hand",
    description: "weights set by hand, not trained, as Tracr compiles reversal: one head (L1H1) reads the letters \
        backwards by position alone and copies them. Its circuit is known, so the circuit view scores each way of \
        finding one against it",
    settings,
    weights,
    truth: &[Truth { corruption: Corruption::Symbol, edges: &["input->a0.h0<v>", "a0.h0->logits"], backups: &[] }],
};

fn settings() -> Settings {
    weights::settings("reverse", serde_json::json!({"length": LENGTH, "symbols": LETTERS}), (SYMBOLS, BLOCK, 1))
}

fn weights(p: &mut Params) -> Result<()> {
    embeddings(p, (SYMBOLS, BLOCK), (TOKEN, POSITION))?;
    let first = Stats::of(&[1.0, 1.0], C);
    let last = Stats::of(&[vec![1.0, 1.0], code(SYMBOLS, first.mean())].concat(), C);
    // The query's cell t meets the key's cell t at position 2·length − 1 − t.
    let a = first.match_weight(MARGIN, HEAD);
    let mut cells: Vec<(usize, usize, f32)> = (0..BLOCK).map(|t| (t, POSITION + t, a)).collect();
    cells.extend((0..BLOCK).filter(|&t| t < 2 * LENGTH).map(|t| (C + t, POSITION + 2 * LENGTH - 1 - t, a)));
    cells.extend((0..SYMBOLS).map(|v| (2 * C + v, TOKEN + v, 1.0)));
    matrix(p, "transformer.h.0.attn.c_attn.weight", (3 * C, C), &cells)?;
    let out: Vec<_> = (0..SYMBOLS).map(|v| (ANSWER + v, v, 1.0 / first.scale)).collect();
    matrix(p, "transformer.h.0.attn.c_proj.weight", (C, C), &out)?;
    let unembed: Vec<_> = (0..LETTERS).map(|v| (v, ANSWER + v, LOGIT / last.scale)).collect();
    matrix(p, "lm_head.weight", (SYMBOLS, C), &unembed)?;
    no_mlps(p, 1)
}
