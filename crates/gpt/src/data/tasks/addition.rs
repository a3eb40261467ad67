//! `addition`: two numbers of `digits` digits and their sum, written `123+456=9750` with the
//! sum's digits ones first.
//!
//! Why the sum comes ones digit first: a model writes left to right, and each digit of a sum
//! depends on the carry from the digits to its right. Written ones first, every digit's carry
//! comes from digits the model has just read or written, so one step of attention finds it;
//! written as usual, the first digit already needs every carry (Lee et al. 2023, "Teaching
//! Arithmetic to Small Transformers", learn reversed sums with far fewer examples).

use super::sums::{parse_sum, read_number};
use super::task::{Outlook, Problem, ProblemSet, Task, TaskPreset};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::fields::{Field, Reader};
use crate::rng::Rng;
use crate::words::{tasks as words, Words};

pub struct Addition;

/// The most digits an operand takes.
const MAX_DIGITS: usize = 9;

const FIELDS: &[Field] = &[Field::count("digits", "Digits", "Digits of each number added", (1, MAX_DIGITS), 3)];

impl Task for Addition {
    fn name(&self) -> &'static str {
        "addition"
    }

    fn title(&self) -> &'static str {
        "addition"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet> {
        Box::new(Sums { digits: settings.count("digits") })
    }

    /// Measured with the preset (Muon) at 1, 2, 3, 6 and 9 digits (`docs/tasks.md`): every count
    /// but 1 forms within 850 steps.
    fn outlook(&self, settings: &Reader, _: f32) -> Vec<Outlook> {
        (settings.count("digits") == 1)
            .then(|| Outlook::new("task.digits", words::addition_one_digit()))
            .into_iter()
            .collect()
    }

    fn watch_for(&self, settings: &Reader) -> Words {
        words::addition_watch(settings.count("digits"))
    }

    fn preset(&self) -> TaskPreset {
        TaskPreset {
            name: "addition",
            description: "addition task, two 3-digit numbers: 2 layers, 64 channels, trained by Muon; the sum comes \
                ones digit first",
            model: GPTConfig::small(2, 4, 64, 12),
            // Muon on the blocks: 95% held out by step 300-350 (AdamW: 1,100-1,450), and at every
            // count of digits from 2 to 9 within 850 steps (AdamW: none past 6 in 8,000).
            train: TrainConfig::quick(64, 3000, 3e-3, 50).with_optimizer("muon", serde_json::json!({})),
            settings: serde_json::json!({"digits": 3}),
            train_fraction: 0.9,
        }
    }
}

/// The problems of `digits`-digit addition.
struct Sums {
    digits: usize,
}

impl Sums {
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
        Problem::new(tokens, prompt_len)
    }
}

impl ProblemSet for Sums {
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

    fn parse(&self, text: &str) -> Result<Problem, Words> {
        let example = &"123456789"[..self.digits];
        let (a, b) = parse_sum(text, &format!("{example}+{example}"), |n| read_number(n, self.digits))?;
        Ok(self.problem(a, b))
    }

    fn makes(&self, _: &Problem) -> bool {
        true // a shorter number typed is padded with zeros, as the task writes it
    }
}
