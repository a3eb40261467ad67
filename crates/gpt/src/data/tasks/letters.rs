//! Letter sequences and their answers, the problems of three tasks: `repeat` (random letters,
//! then the same again: `bdcabdca`, which an induction head continues once it sees the first
//! letter come back), `reverse` (`bdca>acdb`) and `sort` (`bdca>abcd`).

use super::task::{Problem, ProblemSet};
use crate::error::FieldError;
use crate::fields::{Field, Reader};
use crate::rng::Rng;
use crate::words::{problems, settings as words, Words};

/// What the answer is to a sequence of letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Answer {
    /// The same letters again, after the first of the copy.
    Repeat,
    Reverse,
    Sort,
}

/// The most letters a sequence takes.
pub(super) const MAX_LENGTH: usize = 64;

/// The settings of the letter tasks: the alphabet, beside each task's own length field.
pub(super) const SYMBOLS: Field =
    Field::count("symbols", "Symbols", "How many letters of the alphabet the sequences use", (2, 26), 26);

/// Reverse and sort refuse one letter: a problem is then its own answer, and a held-out
/// problem's letter never appears in training, so no model can answer it.
pub(super) fn one_letter(settings: &Reader) -> Vec<FieldError> {
    (settings.count("length") == 1).then(|| FieldError::new("task.length", words::one_letter())).into_iter().collect()
}

pub(super) struct Letters {
    pub answer: Answer,
    pub length: usize,
    pub symbols: usize,
}

impl Letters {
    /// The problems of a letter task's checked settings.
    pub(super) fn new(answer: Answer, settings: &Reader) -> Letters {
        Letters { answer, length: settings.count("length"), symbols: settings.count("symbols") }
    }

    fn is_repeat(&self) -> bool {
        self.answer == Answer::Repeat
    }

    /// The separator's id, after the letters (reverse and sort).
    fn separator(&self) -> u32 {
        self.symbols as u32
    }

    /// The fewest letters a problem has. A repeat's length varies widely, so that the distance
    /// back to the first copy is never the same: only content (an induction head), not a fixed
    /// offset, finds it. Reverse and sort have a fixed length.
    fn shortest(&self) -> usize {
        if self.is_repeat() {
            self.length.min(2)
        } else {
            self.length
        }
    }

    /// The problem on `letters`: a repeat's prompt ends with the first letter of the copy (its
    /// answer the rest of it); reverse and sort put a separator between prompt and answer.
    fn problem(&self, letters: Vec<u32>) -> Problem {
        let n = letters.len();
        let mut answer = letters.clone();
        match self.answer {
            Answer::Reverse => answer.reverse(),
            Answer::Sort => answer.sort_unstable(),
            Answer::Repeat => {}
        }
        let mut tokens = letters;
        if !self.is_repeat() {
            tokens.push(self.separator());
        }
        tokens.extend(answer);
        Problem::new(tokens, n + 1)
    }

    /// Sequences of `n` letters: distinct ones for a repeat (n of s in order), any for the others (s^n).
    fn count_of_length(&self, n: usize) -> u64 {
        let s = self.symbols as u64;
        let factors = (0..n as u64).map(|k| if self.is_repeat() { s.saturating_sub(k) } else { s });
        factors.fold(1u64, u64::saturating_mul)
    }

    /// A prompt a person could type, for messages.
    fn example(&self) -> String {
        (b'a'..b'a' + self.symbols as u8)
            .rev()
            .take(self.shortest().max(4).min(self.length))
            .map(|c| c as char)
            .collect()
    }
}

impl ProblemSet for Letters {
    fn vocab(&self) -> Vec<String> {
        let letters = (b'a'..).take(self.symbols).map(|c| (c as char).to_string());
        let separator = (!self.is_repeat()).then(|| ">".to_string());
        letters.chain(separator).collect()
    }

    fn max_len(&self) -> usize {
        2 * self.length + usize::from(!self.is_repeat())
    }

    fn count(&self) -> u64 {
        (self.shortest()..=self.length).map(|n| self.count_of_length(n)).fold(0, u64::saturating_add)
    }

    fn nth(&self, mut i: u64) -> Problem {
        let mut n = self.shortest();
        while i >= self.count_of_length(n) {
            i -= self.count_of_length(n);
            n += 1;
        }
        // Each position picks among the letters still allowed: all of them, or those unused.
        let mut unused: Vec<u32> = (0..self.symbols as u32).collect();
        let letters = (0..n)
            .map(|_| {
                let choices = unused.len() as u64;
                let pick = (i % choices) as usize;
                i /= choices;
                if self.is_repeat() {
                    unused.remove(pick)
                } else {
                    unused[pick]
                }
            })
            .collect();
        self.problem(letters)
    }

    fn random(&self, rng: &mut Rng, longest: bool) -> Problem {
        let n = if longest { self.length } else { self.shortest() + rng.below(self.length - self.shortest() + 1) };
        let letters = if self.is_repeat() {
            let mut all: Vec<u32> = (0..self.symbols as u32).collect();
            for k in 0..n {
                let pick = k + rng.below(all.len() - k);
                all.swap(k, pick);
            }
            all.truncate(n);
            all
        } else {
            (0..n).map(|_| rng.below(self.symbols) as u32).collect()
        };
        self.problem(letters)
    }

    fn parse(&self, text: &str) -> Result<Problem, Words> {
        let typed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let body = if self.is_repeat() { &typed[..] } else { typed.strip_suffix('>').unwrap_or(&typed) };
        let last = (b'a' + self.symbols as u8 - 1) as char;
        if body.is_empty() || (self.is_repeat() && body.chars().count() < 2) {
            return Err(problems::type_letters(self.is_repeat(), last.to_string(), self.example()));
        }
        if let Some(c) = body.chars().find(|&c| !c.is_ascii_lowercase() || (c as u8 - b'a') as usize >= self.symbols) {
            let why = if c == '>' && !self.is_repeat() {
                problems::before_mark(self.example())
            } else {
                problems::not_letter(format!("{c:?}"), last.to_string())
            };
            return Err(why);
        }
        Ok(self.problem(body.bytes().map(|c| (c - b'a') as u32).collect()))
    }

    /// A repeat is typed as its letters: the prompt's last is the copy's first, which the page adds.
    fn typed(&self, problem: &Problem) -> Vec<u32> {
        let prompt = problem.prompt();
        if self.is_repeat() {
            prompt[..prompt.len() - 1].to_vec()
        } else {
            prompt.to_vec()
        }
    }

    fn makes(&self, problem: &Problem) -> bool {
        let letters = problem.prompt_len - 1;
        let distinct = || {
            let mut seen = [false; 26];
            problem.tokens[..letters].iter().all(|&t| !std::mem::replace(&mut seen[t as usize], true))
        };
        (self.shortest()..=self.length).contains(&letters) && (!self.is_repeat() || distinct())
    }
}
