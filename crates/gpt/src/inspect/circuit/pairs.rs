//! The clean and corrupted prompts a circuit is found on, and what the corruption tests. Where
//! an induction head answers (the repeat task, recall, a text run's repeated random tokens), the
//! prompt ends on a symbol seen before and the answer is the one that followed it then; one
//! corruption changes that following symbol (what is copied), the other swaps the earlier copy
//! with that following symbol (where to look). Other tasks change one symbol of held-out problems, as the
//! patching view proposes.

use super::super::question::{Pair, MAX_PATCH_TOKENS};
use super::super::scores::induction_probe;
use super::request::Corruption;
use crate::data::{Split, TaskData};
use crate::error::{Error, Result};
use crate::words::views;
use crate::work::edge_plan::Group;
use crate::Run;

/// Seeds the pairs, so the same ones come back at every evaluation.
const PAIR_SEED: u64 = 0x6369_7263_7569_7401;

/// `pairs` grouped by length.
pub fn groups(pairs: &[Pair]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for pair in pairs {
        let t = pair.clean.len();
        let at = match groups.iter().position(|g| g.t == t) {
            Some(at) => at,
            None => {
                groups.push(Group { t, ..Group::default() });
                groups.len() - 1
            }
        };
        let group = &mut groups[at];
        group.clean.extend(&pair.clean);
        group.corrupted.extend(&pair.corrupted);
        group.answers.push(pair.answer);
        group.wrongs.push(pair.wrong);
    }
    groups
}

impl Run {
    /// `count` pairs corrupted by `corruption`: the typed pair alone when `clean` and
    /// `corrupted` are given.
    pub fn circuit_pairs(&self, corruption: Corruption, count: usize, typed: (&str, &str)) -> Result<Vec<Pair>> {
        if !typed.0.trim().is_empty() || !typed.1.trim().is_empty() {
            return Ok(vec![self.question_pair(typed.0, typed.1)?]);
        }
        if count == 0 {
            return Err(Error::Data(views::no_pairs()));
        }
        let mut pairs = Vec::with_capacity(count);
        for i in 0..count as u64 * 4 {
            if pairs.len() == count {
                break;
            }
            let seed = PAIR_SEED.wrapping_add(i);
            let pair = match self.task() {
                Some(task) => self.task_circuit_pair(task, corruption, seed)?,
                None => self.text_circuit_pair(corruption, seed)?,
            };
            pairs.extend(pair);
        }
        if pairs.is_empty() {
            return Err(Error::Data(views::uncorruptible()));
        }
        Ok(pairs)
    }

    fn task_circuit_pair(&self, task: &TaskData, corruption: Corruption, seed: u64) -> Result<Option<Pair>> {
        let problem = task.example(Split::Val, seed);
        let tokens: Vec<usize> = problem.tokens.iter().map(|&t| t as usize).collect();
        let links = task.config().task().induction_links(&problem);
        if links.is_empty() {
            if corruption == Corruption::Swap {
                return Err(Error::Data(views::no_swap(task.config().task().name())));
            }
            return Ok(self.proposed_pair(task, &problem));
        }
        let text = |ids: &[usize]| task.text(&ids.iter().map(|&t| t as u32).collect::<Vec<_>>());
        Ok(induction_pair(&tokens, &links, corruption, self.vocab_size()).map(|mut pair| {
            (pair.clean_text, pair.corrupted_text) = (text(&pair.clean), text(&pair.corrupted));
            pair
        }))
    }

    fn text_circuit_pair(&self, corruption: Corruption, seed: u64) -> Result<Option<Pair>> {
        let cfg = self.model().config();
        let period = ((cfg.block_size - 1) / 2).min(MAX_PATCH_TOKENS / 3);
        if period < 4 || cfg.vocab_size < 4 {
            return Err(Error::Data(views::too_small_for_pairs()));
        }
        let tokens = induction_probe(cfg.vocab_size, period, seed);
        let links = crate::data::repeat_links(period, 2 * period);
        let text = |ids: &[usize]| super::super::look::token_texts(self, ids).concat();
        Ok(induction_pair(&tokens[..2 * period], &links, corruption, cfg.vocab_size).map(|mut pair| {
            (pair.clean_text, pair.corrupted_text) = (text(&pair.clean), text(&pair.corrupted));
            pair
        }))
    }
}

/// A pair from a sequence an induction head answers: cut after the query of the middle link
/// `(q, k)` (the key `k` follows the query symbol's earlier copy), the answer `tokens[k]`.
/// [`Corruption::Symbol`] changes `tokens[k]` to a symbol the sequence lacks; [`Corruption::Swap`]
/// swaps the earlier copy (at `k − 1`) with the symbol after it, so the head must look one place
/// further on, where the answer it would give is `tokens[k + 1]`. None where the cut leaves no room.
fn induction_pair(tokens: &[usize], links: &[(usize, usize)], corruption: Corruption, vocab: usize) -> Option<Pair> {
    let usable: Vec<&(usize, usize)> = links
        .iter()
        .filter(|&&(q, k)| k >= 2 && q + 1 < tokens.len() && tokens[q + 1] == tokens[k] && k + 1 < q)
        .collect();
    let &&(q, k) = usable.get(usable.len() / 2)?;
    let clean = tokens[..=q].to_vec();
    let mut corrupted = clean.clone();
    let wrong = match corruption {
        Corruption::Symbol => {
            let unused = (0..vocab).find(|t| !tokens.contains(t))?;
            corrupted[k] = unused;
            unused
        }
        Corruption::Swap => {
            corrupted.swap(k - 1, k);
            tokens[k + 1]
        }
    };
    (wrong != tokens[k]).then(|| Pair { clean, corrupted, answer: tokens[k], wrong, ..Pair::default() })
}

#[cfg(test)]
mod tests {
    use super::{induction_pair, Corruption};

    #[test]
    fn a_swap_moves_where_the_head_looks_and_a_symbol_what_it_copies() {
        // "abcde" then its copy cut after "abc": the answer is d, after c's earlier copy.
        let tokens = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4];
        let links = crate::data::repeat_links(5, 10);
        let swap = induction_pair(&tokens, &links, Corruption::Swap, 6).unwrap();
        assert_eq!((swap.clean.as_slice(), swap.answer), (&[0, 1, 2, 3, 4, 0, 1, 2][..], 3));
        // c's earlier copy now sits before e: an induction head would answer e.
        assert_eq!((swap.corrupted.as_slice(), swap.wrong), (&[0, 1, 3, 2, 4, 0, 1, 2][..], 4));
        let symbol = induction_pair(&tokens, &links, Corruption::Symbol, 6).unwrap();
        assert_eq!((symbol.corrupted.as_slice(), symbol.wrong), (&[0, 1, 2, 5, 4, 0, 1, 2][..], 5));
        assert!(induction_pair(&tokens, &links, Corruption::Symbol, 5).is_none(), "no unused symbol");
    }
}
