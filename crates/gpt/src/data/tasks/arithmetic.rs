//! Sums: multi-digit `addition`, written `123+456=9750` with the sum's digits ones first, and
//! addition modulo p (`modular`), written `12+34=46` with every number one token.
//!
//! Why the sum comes ones digit first: a model writes left to right, and each digit of a sum
//! depends on the carry from the digits to its right. Written ones first, every digit's carry
//! comes from digits the model has just read or written, so one step of attention finds it;
//! written as usual, the first digit already needs every carry (Lee et al. 2023, "Teaching
//! Arithmetic to Small Transformers", learn reversed sums with far fewer examples).

use super::{Format, Problem};
use crate::rng::Rng;

pub(super) struct Addition {
    pub digits: usize,
}

/// Parses `a+b` (an optional `=` after it): two numbers whose values `read` checks.
fn parse_sum(text: &str, example: &str, read: impl Fn(&str) -> Result<u64, String>) -> Result<(u64, u64), String> {
    let typed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(c) = typed.chars().find(|c| !(c.is_ascii_digit() || *c == '+' || *c == '=')) {
        return Err(format!("{c:?} is not a digit: this task's symbols are the digits, + and ="));
    }
    let body = typed.strip_suffix('=').unwrap_or(&typed);
    let parts: Vec<&str> = body.split('+').collect();
    match parts[..] {
        [a, b] if !a.is_empty() && !b.is_empty() && !body.contains('=') => Ok((read(a)?, read(b)?)),
        _ => Err(format!("type a sum as two numbers joined by +, such as {example}: the model writes the answer")),
    }
}

/// The value of `number` (all digits) if it has at most `max_digits` of them.
fn read_number(number: &str, max_digits: usize) -> Result<u64, String> {
    if number.len() > max_digits {
        return Err(format!("{number} has more than {max_digits} digits"));
    }
    number.parse().map_err(|_| format!("{number} is not a number"))
}

impl Addition {
    const PLUS: u32 = 10;
    const EQUALS: u32 = 11;

    fn size(&self) -> u64 {
        10u64.pow(self.digits as u32)
    }

    /// `n`'s `width` decimal digits, most significant first.
    fn digits_of(n: u64, width: usize) -> impl DoubleEndedIterator<Item = u32> {
        (0..width as u32).rev().map(move |k| (n / 10u64.pow(k) % 10) as u32)
    }

    fn problem(&self, a: u64, b: u64) -> Problem {
        let d = self.digits;
        let mut tokens: Vec<u32> = Self::digits_of(a, d).collect();
        tokens.push(Self::PLUS);
        tokens.extend(Self::digits_of(b, d));
        tokens.push(Self::EQUALS);
        let prompt_len = tokens.len();
        tokens.extend(Self::digits_of(a + b, d + 1).rev());
        Problem { tokens, prompt_len }
    }
}

impl Format for Addition {
    fn vocab(&self) -> Vec<String> {
        (0..10).map(|d| d.to_string()).chain(["+".into(), "=".into()]).collect()
    }

    fn max_len(&self) -> usize {
        3 * self.digits + 3
    }

    fn count(&self) -> u64 {
        self.size().saturating_mul(self.size())
    }

    fn nth(&self, i: u64) -> Problem {
        self.problem(i / self.size(), i % self.size())
    }

    fn random(&self, rng: &mut Rng, _longest: bool) -> Problem {
        let a = rng.below_u64(self.size());
        self.problem(a, rng.below_u64(self.size()))
    }

    fn parse(&self, text: &str) -> Result<Problem, String> {
        let example = &"123456789"[..self.digits];
        let (a, b) = parse_sum(text, &format!("{example}+{example}"), |n| read_number(n, self.digits))?;
        Ok(self.problem(a, b))
    }

    fn makes(&self, _: &Problem) -> bool {
        true // a shorter number typed is padded with zeros, as the task writes it
    }

    fn watch_for(&self) -> String {
        format!(
            "Each number is padded to {} digits and the sum is written ones digit first (123+456=9750 is 579), as a \
             model that writes left to right learns it fastest. Watch held-out accuracy climb as the model learns the \
             carries; in the attention grid, each answer digit looks back at the two digits it adds.",
            self.digits
        )
    }
}

pub(super) struct Modular {
    pub p: usize,
}

impl Modular {
    fn problem(&self, a: u64, b: u64) -> Problem {
        let p = self.p as u32;
        let (a, b) = (a as u32, b as u32);
        Problem { tokens: vec![a, p, b, p + 1, (a + b) % p], prompt_len: 4 }
    }
}

impl Format for Modular {
    fn vocab(&self) -> Vec<String> {
        (0..self.p).map(|n| n.to_string()).chain(["+".into(), "=".into()]).collect()
    }

    fn max_len(&self) -> usize {
        5
    }

    fn count(&self) -> u64 {
        (self.p * self.p) as u64
    }

    fn nth(&self, i: u64) -> Problem {
        self.problem(i / self.p as u64, i % self.p as u64)
    }

    fn random(&self, rng: &mut Rng, _longest: bool) -> Problem {
        let a = rng.below(self.p) as u64;
        self.problem(a, rng.below(self.p) as u64)
    }

    fn parse(&self, text: &str) -> Result<Problem, String> {
        let p = self.p as u64;
        let read = |n: &str| {
            let value = read_number(n, 4)?;
            if value < p {
                Ok(value)
            } else {
                Err(format!("{value} is not below p = {p}: this task's numbers are 0 to {}", p - 1))
            }
        };
        let (a, b) = parse_sum(text, &format!("{}+{}", p / 2, p / 3), read)?;
        Ok(self.problem(a, b))
    }

    fn makes(&self, _: &Problem) -> bool {
        true
    }

    fn watch_for(&self) -> String {
        format!(
            "Grokking: every number 0 to {} is one token, and the answer is (a + b) mod {}. Training accuracy reaches \
             100% early, by memorising, while held-out accuracy stays low; much later, weight decay makes the model \
             find the general rule and held-out accuracy jumps. The chart marks both moments.",
            self.p - 1,
            self.p
        )
    }
}
