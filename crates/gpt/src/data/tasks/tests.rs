use super::*;
use crate::data::{Split, IGNORE};
use std::collections::HashSet;

fn task(name: &str) -> TaskConfig {
    TaskConfig::new(task_named(name).unwrap(), serde_json::json!({}), 0.9)
}

fn text(data: &TaskData, problem: &Problem) -> String {
    data.text(&problem.tokens)
}

#[test]
fn each_task_writes_its_problems_as_a_person_reads_them() {
    let solve = |config: TaskConfig, typed: &str| {
        let data = TaskData::new(&config, 1).unwrap();
        text(&data, &data.parse(typed, 64).unwrap())
    };
    let letters = |name| task(name).with("length", 4).with("symbols", 6);
    assert_eq!(solve(letters("reverse"), "bdca"), "bdca>acdb");
    assert_eq!(solve(letters("sort"), "bdca>"), "bdca>abcd");
    assert_eq!(solve(letters("repeat"), " fe a "), "feafea");
    // The sum is written ones digit first: 579 as 9750, 999+1 = 1000 as 0001.
    let addition = task("addition").with("digits", 3);
    assert_eq!(solve(addition.clone(), "123+456"), "123+456=9750");
    assert_eq!(solve(addition, "999+1="), "999+001=0001");
    let modular = task("modular").with("p", 97);
    assert_eq!(solve(modular.clone(), "50+60"), "50+60=13");
    let data = TaskData::new(&modular, 1).unwrap();
    let p = data.parse("50+60", 8).unwrap();
    assert_eq!((p.prompt(), p.answer()), (&[50, 97, 60, 98][..], &[13][..]), "every number is one token");
}

#[test]
fn generators_are_deterministic_for_a_seed_and_differ_across_seeds() {
    for name in TASKS.iter().map(|t| t.name()) {
        let config = task(name);
        let draw = |seed: u64, split: Split| {
            let data = TaskData::new(&config, seed).unwrap();
            let mut rng = Rng::new(42);
            (0..50).map(|_| data.draw(split, &mut rng).tokens).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, Split::Train), draw(7, Split::Train), "{name:?}");
        assert_eq!(draw(7, Split::Val), draw(7, Split::Val), "{name:?}");
        assert_ne!(draw(7, Split::Val), draw(8, Split::Val), "{name:?}: another seed splits otherwise");
    }
}

#[test]
fn a_listed_split_is_exact_and_the_sets_never_overlap() {
    let modular = TaskConfig { train_fraction: 0.3, ..task("modular").with("p", 23) };
    let data = TaskData::new(&modular, 5).unwrap();
    let (train, held) = data.sizes().unwrap();
    assert_eq!((train, held), (159, 370), "round(0.3 × 529) train, the rest held out");
    let mut rng = Rng::new(1);
    let mut seen = [HashSet::new(), HashSet::new()];
    for (k, split) in [Split::Train, Split::Val].into_iter().enumerate() {
        for _ in 0..20_000 {
            let problem = data.draw(split, &mut rng);
            assert_eq!(data.split_of(&problem), split);
            seen[k].insert(problem.tokens);
        }
    }
    assert_eq!((seen[0].len(), seen[1].len()), (159, 370), "every problem of each set is drawn");
    assert!(seen[0].is_disjoint(&seen[1]));
    // Every task small enough to list splits exactly.
    for config in [
        TaskConfig { train_fraction: 0.5, ..task("addition").with("digits", 2) },
        task("reverse").with("length", 5).with("symbols", 6),
        task("repeat").with("length", 5).with("symbols", 7),
    ] {
        let data = TaskData::new(&config, 3).unwrap();
        let (train, held) = data.sizes().unwrap();
        let count = config.count();
        assert_eq!((train + held) as u64, count, "{config:?}");
        assert_eq!(train as u64, (count as f64 * config.train_fraction as f64).round() as u64, "{config:?}");
    }
    let repeat = task("repeat").with("length", 5).with("symbols", 7);
    assert_eq!(
        repeat.count(),
        7 * 6 + 7 * 6 * 5 + 7 * 6 * 5 * 4 + 7 * 6 * 5 * 4 * 3,
        "lengths 2 to 5, letters distinct"
    );
}

#[test]
fn a_hashed_split_never_overlaps_and_keeps_its_share() {
    let reverse = TaskConfig { train_fraction: 0.8, ..task("reverse").with("length", 10).with("symbols", 26) };
    let data = TaskData::new(&reverse, 9).unwrap();
    assert!(data.sizes().is_none(), "26^10 problems are too many to list");
    let mut rng = Rng::new(2);
    let train: HashSet<_> = (0..5000).map(|_| data.draw(Split::Train, &mut rng).tokens).collect();
    let held: HashSet<_> = (0..5000).map(|_| data.draw(Split::Val, &mut rng).tokens).collect();
    assert!(train.is_disjoint(&held));
    let format = reverse.problem_set();
    let in_train = (0..20_000).filter(|_| data.split_of(&format.random(&mut rng, false)) == Split::Train).count();
    assert!((15_600..16_400).contains(&in_train), "{in_train} of 20000 train at a fraction of 0.8");
}

#[test]
fn rows_count_the_answer_alone_and_pad_short_problems() {
    let repeat = task("repeat").with("length", 4).with("symbols", 6);
    let data = TaskData::new(&repeat, 1).unwrap();
    assert_eq!(data.seq_len(), 7, "the longest problem, abcdabcd, less its last token");
    let problem = data.parse("cab", 16).unwrap(); // cabcab: the prompt ends with the copy's first letter
    assert_eq!((problem.prompt(), problem.answer()), (&[2, 0, 1, 2][..], &[0, 1][..]));
    let (mut x, mut y) = (vec![], vec![]);
    data.push_row(&problem, &mut x, &mut y, false);
    assert_eq!(x, [2, 0, 1, 2, 0, 1, 0]);
    assert_eq!(y, [IGNORE, IGNORE, IGNORE, 0, 1, IGNORE, IGNORE], "the copy after its first letter alone");
    let (mut x, mut y) = (vec![], vec![]);
    data.push_row(&problem, &mut x, &mut y, true);
    assert_eq!(y, [0, 1, 2, 0, 1, IGNORE, IGNORE], "every next token, for the views");
    let mut rng = Rng::new(3);
    data.batch(Split::Train, 5, &mut rng, &mut x, &mut y);
    assert_eq!((x.len(), y.len()), (35, 35));
    let lengths: HashSet<usize> = (0..200).map(|_| data.draw(Split::Train, &mut rng).tokens.len()).collect();
    assert_eq!(lengths, HashSet::from([4, 6, 8]), "a repeat has 2 to 4 letters");
}

#[test]
fn typed_problems_outside_the_task_get_a_clear_message() {
    let err = |config: TaskConfig, typed: &str, block: usize| {
        TaskData::new(&config, 1).unwrap().parse(typed, block).unwrap_err().to_string()
    };
    let reverse = task("reverse").with("length", 4).with("symbols", 6);
    assert!(err(reverse.clone(), "abz", 16).contains("'z' is not one of this task's symbols, the letters a to f"));
    assert!(err(reverse.clone(), "ab>ba", 16).contains("only the letters before '>'"));
    assert!(err(reverse.clone(), "", 16).contains("type some letters"));
    assert!(err(reverse, "abcdef", 9).contains("13 tokens, more than the model's block size (9)"));
    let repeat = task("repeat").with("length", 4).with("symbols", 6);
    assert!(err(repeat.clone(), "a", 16).contains("two or more letters"));
    assert!(err(repeat, "ab>", 16).contains("'>' is not one of this task's symbols"));
    let addition = task("addition").with("digits", 2);
    assert!(err(addition.clone(), "12-3", 16).contains("'-' is not a digit"));
    assert!(err(addition.clone(), "123+4", 16).contains("123 has more than 2 digits"));
    assert!(err(addition.clone(), "12+", 16).contains("two numbers joined by +"));
    assert!(err(addition, "1+2=3", 16).contains("two numbers joined by +"));
    let modular = task("modular").with("p", 13);
    assert!(err(modular, "13+1", 16).contains("13 is not below p = 13"));
}

#[test]
fn settings_that_cannot_make_a_held_out_set_are_named() {
    let fields = |config: TaskConfig| -> Vec<(String, String)> {
        config.errors().into_iter().map(|p| (p.field, p.message)).collect()
    };
    let modular = |p: usize, train_fraction| TaskConfig { train_fraction, ..task("modular").with("p", p) };
    let small = fields(modular(2, 0.9));
    assert_eq!(small[0].0, "task.train_fraction");
    assert!(small[0].1.contains("4 problems") && small[0].1.contains("none held out"), "{small:?}");
    assert!(fields(modular(1, 0.5))[0].1.contains("p must be a whole number from 2 to 1000"));
    for f in [0.0, 1.0, -0.5, f32::NAN] {
        assert_eq!(fields(modular(97, f))[0].0, "task.train_fraction", "{f}");
    }
    assert!(fields(modular(97, 0.3)).is_empty());
    let long = task("repeat").with("length", 20).with("symbols", 10);
    assert_eq!(fields(long)[0].0, "task.length", "a repeat's letters are distinct");
    assert!(fields(task("repeat").with("length", 1))[0].1.contains("from 2"));
    assert_eq!(fields(task("addition").with("digits", 0))[0].0, "task.digits");
    assert_eq!(fields(task("sort").with("symbols", 1))[0].0, "task.symbols");
    let reverse = task("reverse");
    assert_eq!(reverse.block_error(16).unwrap().field, "model.block_size");
    assert!(reverse.block_error(16).unwrap().message.contains("17 tokens"));
    assert!(reverse.block_error(17).is_none());
}

#[test]
fn the_new_tasks_write_their_problems_as_a_person_reads_them() {
    let solve = |config: TaskConfig, typed: &str| {
        let data = TaskData::new(&config, 1).unwrap();
        text(&data, &data.parse(typed, 64).unwrap())
    };
    assert_eq!(solve(task("brackets"), "([()["), "([()[>]])");
    assert_eq!(solve(task("brackets"), "[[]>"), "[[]>]");
    assert_eq!(solve(task("parity").with("length", 4), "0110"), "0110=0100", "the parity of each prefix");
    assert_eq!(solve(task("parity").with("length", 4).with("answer", "final"), "0111="), "0111=1");
    assert_eq!(solve(task("recall"), "a3c7e1?ea"), "a3c7e1?e1a3");
    assert_eq!(solve(task("recall"), "a3c7e1?c"), "a3c7e1?c7");
    let err =
        |config: TaskConfig, typed: &str| TaskData::new(&config, 1).unwrap().parse(typed, 64).unwrap_err().to_string();
    assert!(err(task("brackets"), "(]").contains("closes no bracket of its kind"));
    assert!(err(task("brackets"), "()[]").contains("leave some brackets open"));
    assert!(err(task("brackets"), "(x").contains("'x' is not a bracket"));
    assert!(err(task("parity").with("length", 4), "01101").contains("type 1 to 4 bits"));
    assert!(err(task("parity"), "012").contains("'2' is not a bit"));
    assert!(err(task("recall"), "a3a7?a").contains("'a' is a key twice"));
    assert!(err(task("recall"), "a3c7?e").contains("'e' is none of the pairs' keys"));
    assert!(err(task("recall"), "a3c7?cc").contains("'c' is asked for twice"));
    assert!(err(task("recall").with("values", 5), "a3c7?c").contains("'7' is not a value"));
    assert!(err(task("recall"), "a3c7").contains("then ? and keys to ask for"));
}

#[test]
fn brackets_count_and_list_every_valid_prefix_once() {
    let config = task("brackets").with("length", 6);
    let problems = config.problem_set();
    // Brute force: every string of up to 6 brackets that a parser accepts with something open.
    let valid = |s: &[u32]| {
        let mut open = vec![];
        for &b in s {
            match b {
                0 | 2 => open.push(b),
                _ if open.pop() != Some(b - 1) => return false,
                _ => {}
            }
        }
        !open.is_empty()
    };
    let brute: u64 = (1..=6u32)
        .map(|n| {
            (0..4u64.pow(n)).filter(|&i| valid(&(0..n).map(|k| (i >> (2 * k) & 3) as u32).collect::<Vec<_>>())).count()
                as u64
        })
        .sum();
    assert_eq!(problems.count(), brute);
    let listed: HashSet<Vec<u32>> = (0..problems.count()).map(|i| problems.nth(i).tokens).collect();
    assert_eq!(listed.len() as u64, brute, "every index a different problem");
    for tokens in &listed {
        let prompt = tokens.iter().position(|&t| t == 4).unwrap();
        assert!(valid(&tokens[..prompt]), "{tokens:?}");
        // The prompt and its answer together close everything.
        assert!(!valid(tokens.iter().filter(|&&t| t != 4).copied().collect::<Vec<_>>().as_slice()));
    }
}

#[test]
fn recall_links_the_query_to_the_value_of_its_key() {
    let config = task("recall").with("pairs", 3).with("queries", 2);
    let data = TaskData::new(&config, 2).unwrap();
    let problem = data.parse("a3c7e1?ca", 64).unwrap();
    // a3c7e1?c7a3: the prompt runs to c (7), whose 7 is asked for; a (9) is given, its 3 asked for.
    assert_eq!((problem.prompt_len, problem.given.as_slice()), (8, &[1][..]));
    assert_eq!(config.task().induction_links(&problem), [(7, 3), (9, 1)], "each key asked for reads its digit");
    let (mut x, mut y) = (vec![], vec![]);
    data.push_row(&problem, &mut x, &mut y, false);
    let (a, three, seven) = (0, 26 + 3, 26 + 7);
    assert_eq!(y[6..], [IGNORE, seven, IGNORE, three], "the values are asked for, the given key a is not");
    assert_eq!(x[9], a);
    assert!(task("reverse").task().induction_links(&problem).is_empty(), "reverse has no induction head to mark");
    assert_eq!(config.errors().len(), 0);
    assert_eq!(task("recall").with("pairs", 8).with("keys", 5).errors()[0].field, "task.pairs");
    assert_eq!(task("recall").with("pairs", 2).errors()[0].field, "task.queries", "4 queries of 2 pairs");
}

#[test]
fn a_preset_has_no_outlook_and_a_setting_that_stalls_says_so_beside_its_field() {
    for t in TASKS {
        let p = t.preset();
        let preset = TaskConfig::new(*t, p.settings, p.train_fraction);
        assert_eq!(preset.outlook(), vec![], "{}'s preset forms its phenomenon", t.name());
    }
    let stalls = [
        task("repeat").with("length", 9),
        task("addition").with("digits", 1),
        task("brackets").with("length", 32),
        task("sort").with("length", 64),
        task("parity").with("answer", "final"),
        task("recall").with("pairs", 10).with("queries", 1),
    ];
    for config in stalls {
        let outlook = config.outlook();
        assert!(!outlook.is_empty(), "{config:?}");
        for o in &outlook {
            let field = o.field.strip_prefix("task.").unwrap();
            let named = field == TRAIN_FRACTION.name || config.task().fields().iter().any(|f| f.name == field);
            assert!(named, "{} names {field}", config.name);
            assert!(
                o.says.english.contains("measured")
                    || o.says.english.contains("seeds")
                    || o.says.english.contains("steps"),
                "{}",
                o.says
            );
        }
        assert_eq!(config.summary().unwrap().outlook, outlook, "the page's summary carries it");
    }
    assert_eq!(task("recall").with("pairs", 10).with("queries", 1).outlook().len(), 2);
    assert_eq!(task("recall").with("values", 2).outlook(), vec![], "Muon forms it at any count of values");
    let steps = |config: TaskConfig| config.outlook().first().and_then(|o| o.steps);
    let brackets = [16, 18, 26, 32].map(|n| steps(task("brackets").with("length", n)));
    assert_eq!(brackets, [None, Some(4000), Some(6000), Some(10000)], "more steps form it, as measured");
    assert_eq!([48, 64].map(|n| steps(task("sort").with("length", n))), [None, Some(3000)]);
    assert_eq!(task("repeat").with("length", 9).outlook()[0].optimizer, Some("muon"), "Muon forms it");
}

#[test]
fn one_letter_to_reverse_or_sort_is_refused_with_the_reason() {
    for name in ["reverse", "sort"] {
        let errors = task(name).with("length", 1).errors();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].field == "task.length" && errors[0].message.contains("no held-out letter"), "{errors:?}");
        assert!(task(name).with("length", 2).errors().is_empty());
    }
}
