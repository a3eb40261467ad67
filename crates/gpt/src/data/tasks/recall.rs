//! `recall`: associative recall, the harder induction. Key–value pairs (a letter, then a digit),
//! then `?` and some of the keys, each followed by its value: `a3c7e1?c7a3`. The keys after `?`
//! are given; each value is asked for, so the model must find its key's earlier occurrence among
//! all the pairs and copy the digit after it, as an induction head does. Several queries a
//! problem (Arora et al. 2023's multi-query recall) give the circuit signal enough to form within
//! minutes; one is the classic task. Every problem has the same number of pairs: with fewer, a
//! model that guesses among the values it has seen is right too often to ever leave that guess.

use super::task::{Outlook, Problem, ProblemSet, Task, TaskPreset};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::error::FieldError;
use crate::fields::{Field, Reader};
use crate::rng::Rng;
use crate::words::problems;
use crate::words::settings as settings_words;
use crate::words::{tasks as words, Words};

pub struct Recall;

const FIELDS: &[Field] = &[
    Field::count("pairs", "Pairs", "Key–value pairs before the queries", (1, 16), 4),
    Field::count("queries", "Queries", "Keys asked for after the pairs, each once", (1, 16), 4),
    Field::count("keys", "Keys", "How many letters the keys are drawn from (distinct within a problem)", (1, 26), 26),
    Field::count("values", "Values", "How many digits the values are drawn from", (2, 10), 10),
];

impl Task for Recall {
    fn name(&self) -> &'static str {
        "recall"
    }

    fn title(&self) -> &'static str {
        "associative recall (induction)"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn errors(&self, settings: &Reader) -> Vec<FieldError> {
        let (pairs, queries, keys) = (settings.count("pairs"), settings.count("queries"), settings.count("keys"));
        let mut errors = vec![];
        if pairs > keys {
            errors.push(FieldError::new("task.pairs", settings_words::recall_pairs(pairs, keys)));
        }
        if queries > pairs {
            errors.push(FieldError::new("task.queries", settings_words::recall_queries(queries, pairs)));
        }
        errors
    }

    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet> {
        let (pairs, keys, values) = (settings.count("pairs"), settings.count("keys"), settings.count("values"));
        Box::new(Pairs { pairs, queries: settings.count("queries"), keys, values })
    }

    /// Measured with the preset (seed 1337) at every count of pairs from 4 to 10 and at 16 (7 and 8
    /// also for 5,000 steps), 1 to 3 queries, and 2 to 6 values (`docs/tasks.md`).
    fn outlook(&self, settings: &Reader, _: f32) -> Vec<Outlook> {
        let (pairs, queries) = (settings.count("pairs"), settings.count("queries"));
        let mut outlook = vec![];
        if pairs >= 7 {
            outlook.push(Outlook::new("task.pairs", words::recall_pairs(pairs)));
        }
        if queries == 1 {
            outlook.push(Outlook::new("task.queries", words::recall_one_query()));
        }
        outlook
    }

    fn watch_for(&self, _: &Reader) -> Words {
        words::recall_watch()
    }

    fn preset(&self) -> TaskPreset {
        TaskPreset {
            name: "recall",
            description: "associative recall, 4 pairs: 2 layers with rotary positions (RoPE) and QK-norm, trained by \
                Muon; a previous-token head and an induction head form within about a hundred steps, and held-out \
                accuracy jumps from chance",
            // QK-norm brought every seed off the plateau (without it, one in three stayed).
            model: GPTConfig { rope: true, qk_norm: true, ..GPTConfig::small(2, 4, 64, 17) },
            // Muon on the blocks: with AdamW the circuit formed after a plateau of 1,200-3,400
            // steps, with Muon by step 100 on every seed tried (docs/tasks.md). A constant rate.
            train: TrainConfig { min_lr: 1e-3, ..TrainConfig::quick(64, 1000, 1e-3, 20) }
                .with_optimizer("muon", serde_json::json!({})),
            settings: serde_json::json!({"pairs": 4, "queries": 4, "keys": 26, "values": 10}),
            train_fraction: 0.9,
        }
    }

    /// Each key asked for, to the digit after its earlier occurrence.
    fn induction_links(&self, problem: &Problem) -> Vec<(usize, usize)> {
        let pairs = problem.prompt_len / 2 - 1;
        let tokens = &problem.tokens;
        (2 * pairs + 1..tokens.len())
            .step_by(2)
            .filter_map(|query| {
                let key = (0..pairs).find(|&k| tokens[2 * k] == tokens[query])?;
                Some((query, 2 * key + 1))
            })
            .collect()
    }
}

/// The problems of `pairs` pairs (keys among the first `keys` letters, values among the first
/// `values` digits) and `queries` of their keys. Tokens: the letters, the digits and `?`.
struct Pairs {
    pairs: usize,
    queries: usize,
    keys: usize,
    values: usize,
}

/// Ordered choices of `k` of `n` things: n!/(n − k)!.
fn arrangements(n: usize, k: usize) -> u64 {
    (0..k as u64).map(|i| n as u64 - i).fold(1, u64::saturating_mul)
}

/// Picks `k` of `n` things in order from `i`, each pick its remainder: the arrangement numbered
/// `i` (below [`arrangements`]`(n, k)`); returns them and what is left of `i`.
fn arrangement(n: usize, k: usize, mut i: u64) -> (Vec<u32>, u64) {
    let mut unused: Vec<u32> = (0..n as u32).collect();
    let picks = (0..k)
        .map(|_| {
            let pick = (i % unused.len() as u64) as usize;
            i /= unused.len() as u64;
            unused.remove(pick)
        })
        .collect();
    (picks, i)
}

impl Pairs {
    /// The problem on `keys` (distinct letters) and `values` (digits), asking for pairs `asked`:
    /// the prompt runs to the first key asked for; the later keys are given.
    fn problem(&self, keys: &[u32], values: &[u32], asked: &[u32]) -> Problem {
        let digit = |v: u32| self.keys as u32 + v;
        let pair = |k: usize| [keys[k], digit(values[k])];
        let mut tokens: Vec<u32> = (0..keys.len()).flat_map(pair).collect();
        tokens.push(self.question());
        tokens.extend(asked.iter().flat_map(|&q| pair(q as usize)));
        let prompt_len = 2 * keys.len() + 2;
        let given = (1..asked.len()).map(|j| 2 * j - 1).collect();
        Problem { tokens, prompt_len, given }
    }

    /// The token between the pairs and the queries.
    fn question(&self) -> u32 {
        (self.keys + self.values) as u32
    }
}

impl ProblemSet for Pairs {
    fn vocab(&self) -> Vec<String> {
        let letters = (b'a'..).take(self.keys).map(|c| (c as char).to_string());
        let digits = (0..self.values).map(|d| d.to_string());
        letters.chain(digits).chain(["?".to_string()]).collect()
    }

    fn max_len(&self) -> usize {
        2 * self.pairs + 1 + 2 * self.queries
    }

    /// The keys in order, their values, and the keys asked for in order.
    fn count(&self) -> u64 {
        let values = (0..self.pairs).fold(1u64, |count, _| count.saturating_mul(self.values as u64));
        let asked = arrangements(self.pairs, self.queries);
        arrangements(self.keys, self.pairs).saturating_mul(values).saturating_mul(asked)
    }

    fn nth(&self, i: u64) -> Problem {
        let (asked, mut i) = arrangement(self.pairs, self.queries, i);
        let values: Vec<u32> = (0..self.pairs)
            .map(|_| {
                let v = (i % self.values as u64) as u32;
                i /= self.values as u64;
                v
            })
            .collect();
        let (keys, _) = arrangement(self.keys, self.pairs, i);
        self.problem(&keys, &values, &asked)
    }

    fn random(&self, rng: &mut Rng, _longest: bool) -> Problem {
        let shuffled = |n: usize, k: usize, rng: &mut Rng| {
            let mut all: Vec<u32> = (0..n as u32).collect();
            for i in 0..k {
                let pick = i + rng.below(n - i);
                all.swap(i, pick);
            }
            all.truncate(k);
            all
        };
        let keys = shuffled(self.keys, self.pairs, rng);
        let values: Vec<u32> = (0..self.pairs).map(|_| rng.below(self.values) as u32).collect();
        self.problem(&keys, &values, &shuffled(self.pairs, self.queries, rng))
    }

    fn parse(&self, text: &str) -> Result<Problem, Words> {
        let typed: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let example = "a3c7e1?ea";
        let (last_key, last_digit) = ((b'a' + self.keys as u8 - 1) as char, self.values - 1);
        let key = |c: char| {
            let k = (c as u32).wrapping_sub('a' as u32);
            (k < self.keys as u32).then_some(k).ok_or_else(|| problems::not_key(format!("{c:?}"), last_key.to_string()))
        };
        let value = |c: char| {
            let v = c.to_digit(10).filter(|&d| (d as usize) < self.values);
            v.ok_or_else(|| problems::not_value(format!("{c:?}"), last_digit as u32))
        };
        let mark = typed.iter().position(|&c| c == '?');
        let (body, asked) = match mark {
            Some(m) if m > 0 && m % 2 == 0 && m + 1 < typed.len() => (&typed[..m], &typed[m + 1..]),
            _ => return Err(problems::type_pairs(example)),
        };
        let (mut keys, mut values) = (vec![], vec![]);
        for pair in body.chunks(2) {
            let k = key(pair[0])?;
            if keys.contains(&k) {
                return Err(problems::key_twice(format!("{:?}", pair[0])));
            }
            keys.push(k);
            values.push(value(pair[1])?);
        }
        let mut positions = vec![];
        for &c in asked {
            let k = key(c)?;
            let q =
                keys.iter().position(|&known| known == k).ok_or_else(|| problems::not_pair_key(format!("{c:?}")))?;
            if positions.contains(&(q as u32)) {
                return Err(problems::asked_twice(format!("{c:?}")));
            }
            positions.push(q as u32);
        }
        Ok(self.problem(&keys, &values, &positions))
    }

    /// The pairs, `?` and every key asked for (the prompt holds only the first).
    fn typed(&self, problem: &Problem) -> Vec<u32> {
        let question = problem.prompt_len - 1; // after the pairs and `?`: the keys, each with its value
        let keys = problem.tokens[question..].iter().step_by(2);
        problem.tokens[..question].iter().chain(keys).copied().collect()
    }

    fn makes(&self, problem: &Problem) -> bool {
        problem.prompt_len == 2 * self.pairs + 2 && problem.tokens.len() == self.max_len()
    }
}
