//! `brackets`: close them. Round and square brackets, some closed already and some still open,
//! then `>`: the answer closes what is open, innermost first (`([()[>` and `]])`). Each closing
//! bracket must find the opening one it matches, skipping the pairs closed inside the prompt: the
//! stack a parser keeps, drawn in attention.

use super::task::{Outlook, Problem, ProblemSet, Task, TaskPreset};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::fields::{Field, Reader};
use crate::rng::Rng;
use crate::words::problems;
use crate::words::{tasks as words, Words};

pub struct Brackets;

/// The most brackets before `>`: the counts of problems fit in 64 bits below 40.
const MAX_LENGTH: usize = 32;

const FIELDS: &[Field] =
    &[Field::count("length", "Sequence length", "The most brackets before the answer", (1, MAX_LENGTH), 10)];

impl Task for Brackets {
    fn name(&self) -> &'static str {
        "brackets"
    }

    fn title(&self) -> &'static str {
        "brackets (close them)"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet> {
        Box::new(Prefixes::new(settings.count("length")))
    }

    /// Measured at lengths 14 to 32 with the preset, seed 1337 (`docs/tasks.md`).
    fn outlook(&self, settings: &Reader, _: f32) -> Vec<Outlook> {
        let length = settings.count("length");
        // The steps that formed it at the longest length measured in each band.
        let steps = match length {
            ..=16 => return vec![],
            17..=21 => 4000,
            22..=26 => 6000,
            _ => 10000,
        };
        vec![Outlook::new("task.length", words::brackets_long(length)).within(steps)]
    }

    fn watch_for(&self, _: &Reader) -> Words {
        words::brackets_watch()
    }

    fn preset(&self) -> TaskPreset {
        TaskPreset {
            name: "brackets",
            description: "brackets task, up to 10 before the answer: 2 layers with rotary positions (RoPE); each \
                closing bracket learns to find the one it closes",
            model: GPTConfig { rope: true, ..GPTConfig::small(2, 4, 64, 21) },
            // Batches of 32 over 2,000 steps: 99% held out by step 1,100-1,300, each step half the
            // arithmetic of a batch of 64 (which took 1,100-1,250 steps).
            train: TrainConfig::quick(32, 2000, 3e-3, 50),
            settings: serde_json::json!({"length": 10}),
            train_fraction: 0.9,
        }
    }
}

/// Token ids: the two kinds of bracket, each opening then closing, and `>`.
const OPEN: [u32; 2] = [0, 2];
const GREATER: u32 = 4;

/// Valid prefixes of up to `length` brackets with something left open: every closing bracket
/// matches the last one still open.
struct Prefixes {
    length: usize,
    /// `ways[r][d]`: how many ways `r` more brackets can follow at depth `d`, never closing what
    /// is not open and leaving something open.
    ways: Vec<Vec<u64>>,
}

impl Prefixes {
    fn new(length: usize) -> Prefixes {
        let mut ways = vec![vec![0u64; length + 2]; length + 1];
        ways[0].iter_mut().skip(1).for_each(|w| *w = 1);
        for r in 1..=length {
            for d in 0..=length {
                let close = if d > 0 { ways[r - 1][d - 1] } else { 0 };
                ways[r][d] = ways[r - 1][d + 1].saturating_mul(2).saturating_add(close);
            }
        }
        Prefixes { length, ways }
    }

    /// The problem on `brackets`, a valid prefix with something open: `>`, then the closers.
    fn problem(brackets: Vec<u32>) -> Problem {
        let mut open = vec![];
        for &b in &brackets {
            if OPEN.contains(&b) {
                open.push(b);
            } else {
                open.pop();
            }
        }
        let prompt_len = brackets.len() + 1;
        let closers = open.into_iter().rev().map(|b| b + 1);
        Problem::new(brackets.into_iter().chain([GREATER]).chain(closers).collect(), prompt_len)
    }

    /// Prefix `i` of those `n` long, in the order `(`, `[`, then a closer.
    fn unrank(&self, n: usize, mut i: u64) -> Problem {
        let (mut brackets, mut open) = (Vec::with_capacity(n), Vec::new());
        for at in 0..n {
            let left = n - at - 1;
            // Each kind of opening bracket leads to `deeper` prefixes; what is left, to a closer.
            let deeper = self.ways[left][open.len() + 1];
            let kind = (i / deeper.max(1)).min(2) as usize;
            i -= deeper * kind as u64;
            match OPEN.get(kind) {
                Some(&open_one) => {
                    brackets.push(open_one);
                    open.push(open_one);
                }
                None => brackets.push(open.pop().expect("ranked prefixes close only what is open") + 1),
            }
        }
        Prefixes::problem(brackets)
    }
}

impl ProblemSet for Prefixes {
    fn vocab(&self) -> Vec<String> {
        ["(", ")", "[", "]", ">"].map(String::from).to_vec()
    }

    fn max_len(&self) -> usize {
        2 * self.length + 1
    }

    fn count(&self) -> u64 {
        (1..=self.length).map(|n| self.ways[n][0]).fold(0, u64::saturating_add)
    }

    fn nth(&self, mut i: u64) -> Problem {
        let mut n = 1;
        while n < self.length && i >= self.ways[n][0] {
            i -= self.ways[n][0];
            n += 1;
        }
        self.unrank(n, i)
    }

    fn random(&self, rng: &mut Rng, longest: bool) -> Problem {
        if longest {
            return self.unrank(self.length, rng.below_u64(self.ways[self.length][0]));
        }
        self.nth(rng.below_u64(self.count()))
    }

    fn parse(&self, text: &str) -> Result<Problem, Words> {
        let typed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let body = typed.strip_suffix('>').unwrap_or(&typed);
        let example = "([()[";
        let (mut brackets, mut open) = (vec![], vec![]);
        for c in body.chars() {
            let id = match c {
                '(' => 0,
                ')' => 1,
                '[' => 2,
                ']' => 3,
                _ => return Err(problems::not_bracket(format!("{c:?}"), example)),
            };
            if OPEN.contains(&id) {
                open.push(id);
            } else if open.pop() != Some(id - 1) {
                return Err(problems::closes_none(format!("{c:?}")));
            }
            brackets.push(id);
        }
        if open.is_empty() {
            return Err(problems::leave_open(example));
        }
        Ok(Prefixes::problem(brackets))
    }

    fn makes(&self, problem: &Problem) -> bool {
        (1..=self.length).contains(&(problem.prompt_len - 1))
    }
}
