//! `modular`: addition modulo p, written `12+34=46` with every number one token. The grokking
//! task of Power et al. 2022 and Nanda et al. 2023.

use super::sums::{parse_sum, read_number};
use super::task::{Outlook, Problem, ProblemSet, Task, TaskPreset};
use crate::config::GPTConfig;
use crate::config::TrainConfig;
use crate::fields::{Field, Reader};
use crate::rng::Rng;
use crate::words::problems;
use crate::words::{tasks as words, Words};

pub struct ModularAddition;

/// The largest modulus.
const MAX_P: usize = 1000;

const FIELDS: &[Field] = &[Field::count("p", "p", "The modulus: answers are (a + b) mod p", (2, MAX_P), 97)];

impl Task for ModularAddition {
    fn name(&self) -> &'static str {
        "modular"
    }

    fn title(&self) -> &'static str {
        "modular addition (grokking)"
    }

    fn fields(&self) -> &'static [Field] {
        FIELDS
    }

    fn problems(&self, settings: &Reader) -> Box<dyn ProblemSet> {
        Box::new(Modular { p: settings.count("p") })
    }

    /// Measured with the preset at p = 50 and 200 and train fractions 0.15 and 0.5, seed 1337
    /// (`docs/tasks.md`).
    fn outlook(&self, settings: &Reader, train_fraction: f32) -> Vec<Outlook> {
        let p = settings.count("p");
        let mut outlook = vec![];
        let percent = (train_fraction * 100.0).round() as usize;
        if p != 97 {
            outlook.push(Outlook::new("task.p", words::modular_p(p)));
        }
        if train_fraction < 0.2 {
            outlook.push(Outlook::new("task.train_fraction", words::modular_few(percent)));
        } else if train_fraction >= 0.4 {
            outlook.push(Outlook::new("task.train_fraction", words::modular_many(percent)));
        }
        outlook
    }

    fn watch_for(&self, settings: &Reader) -> Words {
        let p = settings.count("p");
        words::modular_watch(p - 1, p)
    }

    fn preset(&self) -> TaskPreset {
        TaskPreset {
            name: "grokking",
            description: "modular addition mod 97, a quarter of the problems to train on: 1 layer, 64 channels, \
                trained by Muon at a constant rate with weight decay. It memorises its training problems first; \
                hundreds of steps later it finds the rule",
            model: GPTConfig::small(1, 4, 64, 5),
            // Muon memorises by step 500-600 and finds the rule by 750-900 (AdamW with weight decay
            // 2 took 950-1,450, then 1,350-2,200). Batches of 448 keep that gap of 250-300 steps
            // (384 narrowed it to 150-250) at seven eighths of 512's arithmetic. Its weight decay
            // is gentler, since Muon's rate is thirty times AdamW's.
            train: TrainConfig {
                weight_decay: 0.25,
                beta2: 0.98,
                min_lr: 1e-3,
                ..TrainConfig::quick(448, 2000, 1e-3, 50)
            }
            .with_optimizer("muon", serde_json::json!({"muon_lr": 0.03})),
            settings: serde_json::json!({"p": 97}),
            train_fraction: 0.25,
        }
    }
}

/// The problems of addition modulo `p`.
struct Modular {
    p: usize,
}

impl Modular {
    fn problem(&self, a: u64, b: u64) -> Problem {
        let p = self.p as u32;
        let (a, b) = (a as u32, b as u32);
        Problem::new(vec![a, p, b, p + 1, (a + b) % p], 4)
    }
}

impl ProblemSet for Modular {
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

    fn parse(&self, text: &str) -> Result<Problem, Words> {
        let p = self.p as u64;
        let read = |n: &str| {
            let value = read_number(n, 4)?;
            if value < p {
                Ok(value)
            } else {
                Err(problems::not_below_p(value, p, p - 1))
            }
        };
        let (a, b) = parse_sum(text, &format!("{}+{}", p / 2, p / 3), read)?;
        Ok(self.problem(a, b))
    }

    fn makes(&self, _: &Problem) -> bool {
        true
    }
}
