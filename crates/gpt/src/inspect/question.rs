//! The question patching and attribution answer: a clean input and a corrupted one of the same
//! length, and the answers they lead to. The logit difference between the two answers at the last
//! position is what patching restores and attribution splits among the parts of the model.
//!
//! Typed or proposed: for a task, two prompts, or the shown held-out problem with one symbol of
//! its prompt changed so that its answer changes (read at the first answer token that differs);
//! for text, two prompts (the answers: the model's likeliest next tokens), or random tokens
//! repeated once whose earlier copy of the token to predict is changed in the corrupted one (an
//! induction head's test; the answers: the tokens to copy).

use super::scores::induction_probe;
use crate::data::{Problem, TaskData};
use crate::error::{Error, Result};
use crate::words::views;
use crate::Run;

/// Tokens patching reads at most, the last ones of a typed text: it runs once per position.
pub const MAX_PATCH_TOKENS: usize = 32;

/// Two inputs and their answers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pair {
    pub clean: Vec<usize>,
    pub corrupted: Vec<usize>,
    /// The clean input's answer and the corrupted one's, read after the last position.
    pub answer: usize,
    pub wrong: usize,
    /// The two inputs as a person would type them (a task's problems, as `ProblemSet::typed`
    /// writes them), to show and edit.
    pub clean_text: String,
    pub corrupted_text: String,
}

impl Run {
    /// The pair for `clean` and `corrupted` as typed; an empty one is proposed.
    pub fn question_pair(&self, clean: &str, corrupted: &str) -> Result<Pair> {
        match self.task() {
            Some(task) => self.task_pair(task, clean, corrupted),
            None => self.text_pair(clean, corrupted),
        }
    }

    fn task_pair(&self, task: &TaskData, clean: &str, corrupted: &str) -> Result<Pair> {
        let block = self.model().config().block_size;
        let clean = if clean.trim().is_empty() { crate::run::shown_example(task) } else { task.parse(clean, block)? };
        let corrupted = if corrupted.trim().is_empty() {
            propose_corruption(task, &clean, block).ok_or_else(|| Error::Data(views::no_corruption()))?
        } else {
            task.parse(corrupted, block)?
        };
        problem_pair(task, &clean, &corrupted)
            .ok_or_else(|| Error::Data(views::same_answers(task.typed(&clean), task.typed(&corrupted))))
    }

    /// `clean` and the one-symbol change to it the patching view would propose, if one changes
    /// its answer.
    pub(super) fn proposed_pair(&self, task: &TaskData, clean: &Problem) -> Option<Pair> {
        let corrupted = propose_corruption(task, clean, self.model().config().block_size)?;
        problem_pair(task, clean, &corrupted)
    }

    fn text_pair(&self, clean: &str, corrupted: &str) -> Result<Pair> {
        let text = |ids: &[usize]| super::look::token_texts(self, ids).concat();
        if clean.is_empty() && corrupted.is_empty() {
            let (clean, corrupted, answer, wrong) = self.induction_pair()?;
            return Ok(Pair {
                clean_text: text(&clean),
                corrupted_text: text(&corrupted),
                clean,
                corrupted,
                answer,
                wrong,
            });
        }
        let (clean, corrupted) = (self.patch_window(clean)?, self.patch_window(corrupted)?);
        if clean.len() != corrupted.len() {
            return Err(Error::Data(views::lengths_differ(clean.len(), corrupted.len())));
        }
        let (answer, wrong) = (self.likeliest_next(&clean)?, self.likeliest_next(&corrupted)?);
        if answer == wrong {
            return Err(Error::Data(views::same_answer(format!("{:?}", self.tokenizer().token_text(answer as u32)))));
        }
        Ok(Pair { clean_text: text(&clean), corrupted_text: text(&corrupted), clean, corrupted, answer, wrong })
    }

    /// Random tokens, then the first half of them again; the corrupted copy changes the token
    /// after the last one's first occurrence. The answers are what an induction head would copy
    /// from each.
    fn induction_pair(&self) -> Result<(Vec<usize>, Vec<usize>, usize, usize)> {
        let cfg = self.model().config();
        let period = ((cfg.block_size - 1) / 2).min(MAX_PATCH_TOKENS / 3);
        if period < 2 || cfg.vocab_size < 3 {
            return Err(Error::Data(views::type_prompts()));
        }
        let tokens = induction_probe(cfg.vocab_size, period, 0x7061_7463_6800_0007);
        let k = period / 2;
        let clean: Vec<usize> = tokens[..period + k].to_vec();
        let unused = (0..cfg.vocab_size).find(|t| !tokens[..period].contains(t));
        let replacement = unused.unwrap_or((tokens[k] + 1) % cfg.vocab_size);
        let mut corrupted = clean.clone();
        corrupted[k] = replacement;
        Ok((clean, corrupted, tokens[k], replacement))
    }

    fn patch_window(&self, text: &str) -> Result<Vec<usize>> {
        let ids = super::look::window(self, text)?;
        if ids.is_empty() {
            return Err(Error::Data(views::both_or_neither()));
        }
        Ok(ids[ids.len().saturating_sub(MAX_PATCH_TOKENS)..].to_vec())
    }

    fn likeliest_next(&self, ids: &[usize]) -> Result<usize> {
        let logits = self.model().logits(ids, 1, ids.len())?;
        let v = self.vocab_size();
        Ok(crate::ops::argmax(&logits.as_slice().expect("fresh logits")[(ids.len() - 1) * v..]))
    }
}

/// Two problems as a pair, cut where their answers first differ, if they do.
fn problem_pair(task: &TaskData, clean: &Problem, corrupted: &Problem) -> Option<Pair> {
    let k = first_difference(clean, corrupted)?;
    let ids = |p: &Problem| p.tokens[..p.prompt_len + k].iter().map(|&t| t as usize).collect();
    Some(Pair {
        clean: ids(clean),
        corrupted: ids(corrupted),
        answer: clean.answer()[k] as usize,
        wrong: corrupted.answer()[k] as usize,
        clean_text: task.typed(clean),
        corrupted_text: task.typed(corrupted),
    })
}

/// Where two problems' answers first differ, if their prompts and answers have the same lengths.
fn first_difference(a: &Problem, b: &Problem) -> Option<usize> {
    let same_shape = a.prompt_len == b.prompt_len && a.tokens.len() == b.tokens.len();
    same_shape.then(|| a.answer().iter().zip(b.answer()).position(|(x, y)| x != y)).flatten()
}

/// Of the problems whose prompt is one symbol away from `clean`'s, the one whose answer differs
/// earliest (the first such in the order of the typed form's symbols, then symbol order). Each
/// candidate is typed as a person would type it (`ProblemSet::typed`: a repeat's letters,
/// recall's pairs and keys asked for) with one symbol changed, and read back.
fn propose_corruption(task: &TaskData, clean: &Problem, block: usize) -> Option<Problem> {
    let typed = task.problem_tokens(clean);
    let mut best: Option<(usize, Problem)> = None;
    for i in 0..typed.len() {
        for symbol in 0..task.vocab().len() as u32 {
            if symbol == typed[i] {
                continue;
            }
            let mut edited = typed.clone();
            edited[i] = symbol;
            let Ok(candidate) = task.parse(&task.text(&edited), block) else { continue };
            if !one_apart(clean.prompt(), candidate.prompt()) {
                continue;
            }
            if let Some(k) = first_difference(clean, &candidate) {
                if best.as_ref().is_none_or(|(best_k, _)| k < *best_k) {
                    best = Some((k, candidate));
                }
            }
        }
    }
    best.map(|(_, problem)| problem)
}

/// Whether two prompts of the same length differ in exactly one symbol.
fn one_apart(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).filter(|(x, y)| x != y).count() == 1
}
