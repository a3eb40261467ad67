//! A task's problems split into a training set and a held-out set, and batches drawn from each.
//!
//! A problem trains when a seeded hash of its prompt falls below a threshold. So no problem is in
//! both sets, membership needs no list (a problem a person types is placed too), and each seed
//! splits differently. A task with few enough problems to list ([`ENUMERATE_LIMIT`]) sets the
//! threshold so that exactly the chosen share trains, and draws from the two lists; a larger one
//! draws random problems until one falls on the side it wants.

use super::task::{unreadable, Problem, ProblemSet};
use super::{train_count, TaskConfig, ENUMERATE_LIMIT};
use crate::data::{Split, IGNORE};
use crate::error::Result;
use crate::rng::Rng;
use crate::words::problems;

/// Keeps the split's hash apart from every other use of the seed.
const SPLIT_STREAM: u64 = 0x7370_6c69_7400_0003;

/// SplitMix64's finaliser: every input bit moves every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A task's problems, split by a seed, as a run trains and evaluates on them.
pub struct TaskData {
    config: TaskConfig,
    problems: Box<dyn ProblemSet>,
    vocab: Vec<String>,
    seed: u64,
    /// A prompt whose hash is below this trains.
    threshold: u64,
    /// The problem numbers of each set (training first), when the task has few enough to list.
    listed: Option<[Vec<u32>; 2]>,
}

impl TaskData {
    /// The problems of `config`, split by `seed`.
    pub fn new(config: &TaskConfig, seed: u64) -> Result<TaskData> {
        config.validate()?;
        let problems = config.problem_set();
        let vocab = problems.vocab();
        let mut data = TaskData { config: config.clone(), problems, vocab, seed, threshold: 0, listed: None };
        let count = data.problems.count();
        if count <= ENUMERATE_LIMIT {
            // Each problem is hashed twice rather than its hash kept beside the lists: a million
            // problems then take 8 MiB at most, not 20 (a damaged checkpoint may ask for that many).
            let hash = |i: u64| data.key(data.problems.nth(i).prompt());
            let train = train_count(count, config.train_fraction) as usize;
            let mut hashes: Vec<u64> = (0..count).map(hash).collect();
            let threshold = *hashes.select_nth_unstable(train).1;
            drop(hashes);
            let mut sets = [Vec::with_capacity(train), Vec::with_capacity(count as usize - train)];
            for i in 0..count {
                sets[usize::from(hash(i) >= threshold)].push(i as u32);
            }
            (data.threshold, data.listed) = (threshold, Some(sets));
        } else {
            data.threshold = (config.train_fraction as f64 * 2f64.powi(64)) as u64;
        }
        Ok(data)
    }

    pub fn config(&self) -> &TaskConfig {
        &self.config
    }

    /// The seeded hash that places a prompt.
    fn key(&self, prompt: &[u32]) -> u64 {
        let start = mix(self.seed ^ SPLIT_STREAM);
        let h = prompt.iter().fold(start, |h, &t| mix(h.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ t as u64));
        mix(h ^ prompt.len() as u64)
    }

    /// Whether the task makes `problem`, and so places it in one set or the other.
    pub fn makes(&self, problem: &Problem) -> bool {
        self.problems.makes(problem)
    }

    /// Which set `problem` belongs to (of those the task makes; see [`TaskData::makes`]).
    pub fn split_of(&self, problem: &Problem) -> Split {
        if self.key(problem.prompt()) < self.threshold {
            Split::Train
        } else {
            Split::Val
        }
    }

    /// How many problems each set holds (training, held out), when the task has few enough to list.
    pub fn sizes(&self) -> Option<(usize, usize)> {
        self.listed.as_ref().map(|[train, held]| (train.len(), held.len()))
    }

    /// A random problem of `split`.
    pub fn draw(&self, split: Split, rng: &mut Rng) -> Problem {
        if let Some(sets) = &self.listed {
            let set = &sets[usize::from(split == Split::Val)];
            return self.problems.nth(set[rng.below(set.len())] as u64);
        }
        loop {
            let problem = self.problems.random(rng, false);
            if self.split_of(&problem) == split {
                return problem;
            }
        }
    }

    /// Positions a batch row has: every problem but the last token of the longest.
    pub fn seq_len(&self) -> usize {
        self.problems.max_len() - 1
    }

    /// Appends `problem` as one row of `x` (its tokens, padded) and `y` (the next tokens where
    /// they are the answer's and asked for, [`IGNORE`] elsewhere). `all_targets` keeps every next
    /// token, the prompt's too.
    pub fn push_row(&self, problem: &Problem, x: &mut Vec<u32>, y: &mut Vec<u32>, all_targets: bool) {
        let t = self.seq_len();
        let tokens = &problem.tokens;
        let first = if all_targets { 0 } else { problem.prompt_len - 1 };
        // Answer token i + 1 - prompt_len is asked for unless it is given.
        let asked = |i: usize| all_targets || !problem.is_given(i + 1 - problem.prompt_len);
        x.extend((0..t).map(|i| tokens.get(i).copied().unwrap_or(0)));
        y.extend((0..t).map(|i| match tokens.get(i + 1) {
            Some(&next) if i >= first && asked(i) => next,
            _ => IGNORE,
        }));
    }

    /// Fills `x` and `y` with `batch` random problems of `split`, a row each.
    pub fn batch(&self, split: Split, batch: usize, rng: &mut Rng, x: &mut Vec<u32>, y: &mut Vec<u32>) {
        x.clear();
        y.clear();
        for _ in 0..batch {
            self.push_row(&self.draw(split, rng), x, y, false);
        }
    }

    /// The problem whose prompt a person typed, with its right answer, if the task can read it
    /// and a model of `block_size` can hold it.
    pub fn parse(&self, text: &str, block_size: usize) -> Result<Problem> {
        let problem = self.problems.parse(text).map_err(unreadable)?;
        if problem.tokens.len() > block_size {
            return Err(unreadable(problems::too_long(problem.tokens.len(), block_size)));
        }
        Ok(problem)
    }

    /// The text a person types for `problem`, which [`TaskData::parse`] reads back as it.
    pub fn typed(&self, problem: &Problem) -> String {
        self.text(&self.problem_tokens(problem))
    }

    /// The tokens of [`TaskData::typed`]'s text.
    pub fn problem_tokens(&self, problem: &Problem) -> Vec<u32> {
        self.problems.typed(problem)
    }

    /// The task's tokens, in id order.
    pub fn vocab(&self) -> &[String] {
        &self.vocab
    }

    /// A task's tokens as the text a person reads.
    pub fn text(&self, tokens: &[u32]) -> String {
        tokens.iter().filter_map(|&t| self.vocab.get(t as usize).map(String::as_str)).collect()
    }

    /// A longest problem of `split`, always the same for a `seed`: a problem to show, and a
    /// repeat task's induction probe.
    pub fn example(&self, split: Split, seed: u64) -> Problem {
        let mut rng = Rng::new(seed);
        loop {
            let problem = self.problems.random(&mut rng, true);
            if self.split_of(&problem) == split {
                return problem;
            }
        }
    }
}

impl std::fmt::Debug for TaskData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskData").field("config", &self.config).field("seed", &self.seed).finish()
    }
}
