//! Induction with a backup head, set by hand on the repeat task: two induction heads in layer 2
//! (L2H1, L2H2) each copy the answer, and layer 2's MLP lets a letter through only if it was seen
//! earlier in the sequence, up to a cap one head alone reaches. So when a changed symbol is patched
//! into one head, the other still carries the answer, and the changed symbol, never seen in the
//! clean sequence, is held back: each copy's edges alone change nothing, both together the
//! answer. What was seen comes from a head attending evenly to every position (L1H2), whose
//! letter shares layer 1's MLP turns into 1 or 0. A previous-token head (L1H1) feeds the
//! induction heads' keys, as in `induction.rs`.
//!
//! LayerNorm stays exact as there: the stream's one-hot blocks hold the same values at every
//! position; the shares and what was seen vary, so they are written small (`SMALL`), and what was
//! seen as a pair of opposite blocks whose sum, and so the mean, never changes.

use super::spec::{Built, Truth};
use super::weights::{self, code, embeddings, matrix, Stats, HEAD, LOGIT, MARGIN, WIDTH as C};
use crate::error::Result;
use crate::params::Params;
use crate::settings::Settings;
use crate::work::edge_plan::Corruption;

const LETTERS: usize = 12;
const LENGTH: usize = 8;
const BLOCK: usize = 2 * LENGTH;
/// Where each block of the stream starts.
const TOKEN: usize = 0;
const POSITION: usize = TOKEN + LETTERS;
const PREVIOUS: usize = POSITION + BLOCK;
const SHARE: usize = PREVIOUS + LETTERS;
const SEEN: usize = SHARE + LETTERS;
const UNSEEN: usize = SEEN + LETTERS;
const ANSWER: usize = UNSEEN + LETTERS;
const BACKUP: usize = ANSWER + LETTERS;
const OUT: usize = BACKUP + LETTERS;
/// The scale of the blocks whose values vary from position to position.
const SMALL: f32 = 0.02;
/// What layer 2's MLP adds for each head naming a letter.
const HEAD_VOTE: f32 = 1.0;
/// What it takes away from a letter never seen: more than both heads add.
const UNSEEN_PENALTY: f32 = 3.0;
/// What it takes away from every letter, so that one no head names stays at 0.
const FLOOR: f32 = 0.25;
/// The most it lets through, which one head alone reaches.
const CAP: f32 = 0.5;

pub(super) const BACKUP_HEAD: Built = Built {
    name: "backup",
    preset: "induction with a backup head, built by hand",
    description: "weights set by hand, not trained: two induction heads (L2H1, L2H2) each copy the answer, and the \
        MLP after them lets through only letters seen earlier, up to what one head alone gives. Patch a changed \
        letter into either head and the other still answers: each head's edges score 0 alone, and only both \
        together change the answer. What was seen comes from a head that attends to every position evenly (L1H2)",
    settings,
    weights,
    truth: &[Truth {
        corruption: Corruption::Symbol,
        edges: &[
            "input->a0.h1<v>",
            "a0.h1->m0",
            "m0->m1",
            "input->a1.h0<v>",
            "input->a1.h1<v>",
            "a1.h0->m1",
            "a1.h1->m1",
            "m1->logits",
        ],
        backups: &[&["input->a1.h0<v>", "input->a1.h1<v>"], &["a1.h0->m1", "a1.h1->m1"]],
    }],
};

fn settings() -> Settings {
    weights::settings("repeat", serde_json::json!({"length": LENGTH, "symbols": LETTERS}), (LETTERS, BLOCK, 2))
}

/// A hidden unit of an MLP reading a normalised stream (`stats`): `cells` (channel, weight) of the
/// raw stream, and `constant`, made from the position block, which sums to 1 at every position.
fn unit(unit: usize, stats: &Stats, cells: &[(usize, f32)], constant: f32) -> Vec<(usize, usize, f32)> {
    // Each normalised channel is (x − mean) · scale: undo the scale, and give back the mean.
    let taken: f32 = cells.iter().map(|&(_, w)| w).sum::<f32>() * stats.mean();
    let per_position = (constant + taken) / (1.0 - BLOCK as f32 * stats.mean());
    let mut row: Vec<_> = cells.iter().map(|&(c, w)| (unit, c, w / stats.scale)).collect();
    row.extend((0..BLOCK).map(|p| (unit, POSITION + p, per_position / stats.scale)));
    row
}

fn weights(p: &mut Params) -> Result<()> {
    embeddings(p, (LETTERS, BLOCK), (TOKEN, POSITION))?;
    let first = Stats::of(&[1.0, 1.0], C);
    // The shares of each letter sum to 1 less the letters' mean: the same at every position.
    let shares = SMALL * (1.0 - LETTERS as f32 * first.mean());
    let after_first: Vec<f32> = [vec![1.0, 1.0, shares], code(LETTERS, first.mean())].concat();
    let second = Stats::of(&after_first, C);
    let answers = [code(LETTERS, second.mean()), code(LETTERS, second.mean())].concat();
    let third = Stats::of(&[after_first.clone(), answers.clone()].concat(), C);
    let last = Stats::of(&[after_first, answers, vec![CAP]].concat(), C);
    // Layer 1, head 1: the previous token, as in `induction.rs`; head 2 attends to every position
    // alike (no query, no key) and writes each letter's share of them, small.
    let a = first.match_weight(MARGIN, HEAD);
    let mut cells: Vec<(usize, usize, f32)> = (0..BLOCK).map(|t| (t, POSITION + t, a)).collect();
    cells.extend((1..BLOCK).map(|t| (C + t, POSITION + t - 1, a)));
    cells.extend((0..LETTERS).map(|v| (2 * C + v, TOKEN + v, 1.0)));
    cells.extend((0..LETTERS).map(|v| (2 * C + HEAD + v, TOKEN + v, 1.0)));
    matrix(p, "transformer.h.0.attn.c_attn.weight", (3 * C, C), &cells)?;
    let mut out: Vec<_> = (0..LETTERS).map(|v| (PREVIOUS + v, v, 1.0 / first.scale)).collect();
    out.extend((0..LETTERS).map(|v| (SHARE + v, HEAD + v, SMALL / first.scale)));
    matrix(p, "transformer.h.0.attn.c_proj.weight", (C, C), &out)?;
    // Layer 1's MLP: seen = min(BLOCK · share, 1), 1 for any letter seen in up to BLOCK positions,
    // written small into the seen block and its opposite.
    let share = BLOCK as f32 / SMALL;
    let mut fc = Vec::new();
    for v in 0..LETTERS {
        // A share as written is SMALL · (share − the letters' mean): take the mean back.
        let mean_back = share * SMALL * first.mean();
        fc.extend(unit(v, &second, &[(SHARE + v, share)], mean_back));
        fc.extend(unit(LETTERS + v, &second, &[(SHARE + v, share)], mean_back - 1.0));
    }
    matrix(p, "transformer.h.0.mlp.c_fc.weight", (4 * C, C), &fc)?;
    let mut seen = Vec::new();
    for v in 0..LETTERS {
        seen.extend([(SEEN + v, v, SMALL), (SEEN + v, LETTERS + v, -SMALL)]);
        seen.extend([(UNSEEN + v, v, -SMALL), (UNSEEN + v, LETTERS + v, SMALL)]);
    }
    matrix(p, "transformer.h.0.mlp.c_proj.weight", (C, 4 * C), &seen)?;
    // Layer 2: two induction heads alike, as in `induction.rs`, one writing the answer's block,
    // the other the backup's.
    let a = second.match_weight(MARGIN, HEAD);
    let mut cells = Vec::new();
    for head in [0, HEAD] {
        cells.extend((0..LETTERS).map(|v| (head + v, TOKEN + v, a)));
        cells.extend((0..LETTERS).map(|v| (C + head + v, PREVIOUS + v, a)));
        cells.extend((0..LETTERS).map(|v| (C + head + v, POSITION, -3.0 * a)));
        cells.extend((0..LETTERS).map(|v| (2 * C + head + v, TOKEN + v, 1.0)));
    }
    matrix(p, "transformer.h.1.attn.c_attn.weight", (3 * C, C), &cells)?;
    let mut out: Vec<_> = (0..LETTERS).map(|v| (ANSWER + v, v, 1.0 / second.scale)).collect();
    out.extend((0..LETTERS).map(|v| (BACKUP + v, HEAD + v, 1.0 / second.scale)));
    matrix(p, "transformer.h.1.attn.c_proj.weight", (C, C), &out)?;
    // Layer 2's MLP: each letter's votes, less UNSEEN_PENALTY if never seen and FLOOR, capped at
    // CAP: min(relu(votes), CAP) = relu(votes) − relu(votes − CAP).
    let mut fc = Vec::new();
    for v in 0..LETTERS {
        // Each head's code is 1 less its mean where it names the letter; seen is SMALL or 0.
        let cells = [(ANSWER + v, HEAD_VOTE), (BACKUP + v, HEAD_VOTE), (SEEN + v, UNSEEN_PENALTY / SMALL)];
        let constant = 2.0 * HEAD_VOTE * second.mean() - UNSEEN_PENALTY - FLOOR;
        fc.extend(unit(v, &third, &cells, constant));
        fc.extend(unit(LETTERS + v, &third, &cells, constant - CAP));
    }
    matrix(p, "transformer.h.1.mlp.c_fc.weight", (4 * C, C), &fc)?;
    let out: Vec<_> = (0..LETTERS).flat_map(|v| [(OUT + v, v, 1.0), (OUT + v, LETTERS + v, -1.0)]).collect();
    matrix(p, "transformer.h.1.mlp.c_proj.weight", (C, 4 * C), &out)?;
    let unembed: Vec<_> = (0..LETTERS).map(|v| (v, OUT + v, LOGIT / (CAP * last.scale))).collect();
    matrix(p, "lm_head.weight", (LETTERS, C), &unembed)
}
