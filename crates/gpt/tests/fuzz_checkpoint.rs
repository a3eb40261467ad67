//! Fuzzes the checkpoint reader with damaged copies of valid checkpoints: cut short, bits
//! flipped, the header's length, dtypes, shapes and offsets edited, tensors dropped or
//! duplicated, metadata and config fields replaced, garbage appended. Each opens or gives a
//! specific error, never a panic, and never allocates more than the file's size justifies
//! (a counting allocator measures it). `FUZZ_SCALE=100` runs a hundred times more.

#[path = "fuzz/allocation.rs"]
mod allocation;
#[path = "fuzz/fields.rs"]
mod fields;
mod fuzz;

use allocation::{justified, peak_allocation, task_split};
use fields::{MODEL_FIELDS, TASK_FIELDS};
use fuzz::{assert_specific, cases, TEXT};
use gpt::{Budget, GPTConfig, Run, SampleConfig, Settings, TaskConfig, TokenizerKind, TrainConfig};
use proptest::prelude::*;
use safetensors::SafeTensors;
use serde_json::{json, Map, Value};

/// Valid checkpoints to damage: characters with optimizer state and history, byte pairs, a
/// task's run with rotary positions, and a bare one with weights, `config` and `vocab` only (as
/// PyTorch writes).
fn originals() -> Vec<Vec<u8>> {
    let model = GPTConfig { block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, dropout: 0.1, ..Default::default() };
    let train = TrainConfig { batch_size: 2, max_iters: 50, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let chars = Settings { model: model.clone(), train: train.clone(), ..Default::default() };
    let bpe = Settings { tokenizer: TokenizerKind::Bpe, bpe_vocab_size: 270, ..chars.clone() };
    let modular = TaskConfig {
        train_fraction: 0.5,
        ..TaskConfig::new(gpt::task_named("modular").unwrap(), serde_json::json!({"p": 7}), 0.5)
    };
    let task = Settings { model: GPTConfig { rope: true, ..model }, task: Some(modular), ..chars.clone() };
    let mut files = vec![];
    for settings in [chars, bpe, task] {
        let mut run = Run::create(&settings, &TEXT.repeat(8), &Budget::UNLIMITED).unwrap();
        run.train(2, &|| 0.0).unwrap();
        run.start_sample(SampleConfig { max_new_tokens: 4, ..Default::default() }).unwrap();
        while run.sample_next(4).unwrap().is_some() {}
        files.push(run.save().unwrap());
    }
    let bare = {
        let file = SafeTensors::deserialize(&files[0]).unwrap();
        let (_, header) = SafeTensors::read_metadata(&files[0]).unwrap();
        let mut meta = header.metadata().clone().unwrap();
        meta.retain(|k, _| k == "config" || k == "vocab");
        let weights = file.tensors().into_iter().filter(|(name, _)| !name.starts_with("optimizer."));
        safetensors::serialize(weights, Some(meta)).unwrap()
    };
    files.push(bare);
    files
}

/// `bytes` with its JSON header changed by `change` (tensor data left where it was).
fn edit_header(bytes: &[u8], change: impl FnOnce(&mut Value)) -> Vec<u8> {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut header: Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    change(&mut header);
    with_header(bytes, serde_json::to_string(&header).unwrap())
}

fn with_header(bytes: &[u8], header: String) -> Vec<u8> {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&bytes[8 + n..]);
    out
}

/// The name of tensor number `i` (modulo their count) in a header.
fn tensor_name(header: &Map<String, Value>, i: usize) -> String {
    let names: Vec<&String> = header.keys().filter(|k| *k != "__metadata__").collect();
    names.get(i % names.len().max(1)).map_or_else(String::new, |n| n.to_string())
}

/// Sets `key` in the entry of tensor number `i`, if that entry is still an object.
fn set_in_entry(header: &mut Map<String, Value>, i: usize, key: &str, value: Value) {
    let name = tensor_name(header, i);
    if let Some(entry) = header.get_mut(&name).and_then(Value::as_object_mut) {
        entry.insert(key.into(), value);
    }
}

/// Values a damaged header might hold where a number, a shape or a string belongs.
fn odd_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(1u64 << 40)),
        Just(json!(u64::MAX)),
        Just(json!(1.5)),
        Just(json!("x")),
        Just(json!([])),
        Just(json!({})),
        (0u64..100_000).prop_map(Value::from),
    ]
}

const META_KEYS: [&str; 11] = [
    "config",
    "vocab",
    "train_config",
    "step",
    "rng",
    "history",
    "sampling",
    "optimizer_step",
    "format",
    "merges",
    "task",
];

#[derive(Debug, Clone)]
enum Damage {
    /// Keep this share of the file.
    Truncate(f64),
    /// Flip these bits, each at a share of the file's length.
    FlipBits(Vec<(f64, u8)>),
    HeaderLength(u64),
    Dtype(usize, &'static str),
    Shape(usize, Vec<u64>),
    Offsets(usize, Value, Value),
    DropTensor(usize),
    /// The same tensor's entry twice in the header's JSON.
    DuplicateEntry(usize),
    /// A tensor's entry again under another name the model does not have.
    CopyUnderNewName(usize),
    Metadata(&'static str, Value),
    /// A field of a JSON object in the metadata: `config`'s or `task`'s.
    MetadataField(&'static str, &'static str, Value),
    Append(Vec<u8>),
}

fn damage() -> BoxedStrategy<Damage> {
    const DTYPES: [&str; 10] = ["F16", "BF16", "F64", "I32", "I64", "U8", "BOOL", "F8_E4M3", "f32", "Q4"];
    // Cutting, flipping and misstating the length mostly stop the file at the safetensors layer;
    // edits inside the header reach the checks after it, so they come up more often.
    prop_oneof![
        1 => (0.0..1.0f64).prop_map(Damage::Truncate),
        2 => proptest::collection::vec((0.0..1.0f64, 0u8..8), 1..8).prop_map(Damage::FlipBits),
        1 => prop_oneof![Just(0u64), Just(u64::MAX), Just(1 << 40), any::<u64>(), 0u64..5_000].prop_map(Damage::HeaderLength),
        2 => (any::<usize>(), proptest::sample::select(&DTYPES[..])).prop_map(|(i, d)| Damage::Dtype(i, d)),
        2 => (any::<usize>(), proptest::collection::vec(prop_oneof![0u64..40, Just(u64::MAX), Just(1 << 33)], 0..4))
            .prop_map(|(i, s)| Damage::Shape(i, s)),
        2 => (any::<usize>(), odd_json(), odd_json()).prop_map(|(i, a, b)| Damage::Offsets(i, a, b)),
        3 => any::<usize>().prop_map(Damage::DropTensor),
        2 => any::<usize>().prop_map(Damage::DuplicateEntry),
        2 => any::<usize>().prop_map(Damage::CopyUnderNewName),
        4 => (proptest::sample::select(&META_KEYS[..]), prop_oneof![odd_json(), ".{0,12}".prop_map(Value::from)])
            .prop_map(|(k, v)| Damage::Metadata(k, v)),
        4 => (proptest::sample::select(&MODEL_FIELDS[..]), odd_json())
            .prop_map(|(k, v)| Damage::MetadataField("config", k, v)),
        2 => (proptest::sample::select(&TASK_FIELDS[..]), odd_json()).prop_map(|(k, v)| Damage::MetadataField("task", k, v)),
        1 => proptest::collection::vec(any::<u8>(), 1..64).prop_map(Damage::Append),
    ]
    .boxed()
}

/// `bytes` with `damage` done to it. Damage to a header that no longer parses is skipped.
fn apply(bytes: Vec<u8>, damage: &Damage) -> Vec<u8> {
    let at = |share: f64| ((bytes.len() as f64 * share) as usize).min(bytes.len().saturating_sub(1));
    let header_parses = bytes.len() >= 8
        && usize::try_from(u64::from_le_bytes(bytes[..8].try_into().unwrap()))
            .ok()
            .and_then(|n| bytes.get(8..8usize.checked_add(n)?))
            .is_some_and(|h| serde_json::from_slice::<Value>(h).is_ok_and(|v| v.is_object()));
    let edit = |change: &dyn Fn(&mut Map<String, Value>)| {
        if !header_parses {
            return bytes.clone();
        }
        edit_header(&bytes, |h| change(h.as_object_mut().unwrap()))
    };
    match damage {
        Damage::Truncate(share) => bytes[..at(*share)].to_vec(),
        Damage::FlipBits(flips) => {
            let mut out = bytes.clone();
            for &(share, bit) in flips {
                if !out.is_empty() {
                    out[at(share)] ^= 1 << bit;
                }
            }
            out
        }
        Damage::HeaderLength(n) => {
            let mut out = bytes.clone();
            if out.len() >= 8 {
                out[..8].copy_from_slice(&n.to_le_bytes());
            }
            out
        }
        Damage::Dtype(i, dtype) => edit(&|h| set_in_entry(h, *i, "dtype", json!(dtype))),
        Damage::Shape(i, shape) => edit(&|h| set_in_entry(h, *i, "shape", json!(shape))),
        Damage::Offsets(i, a, b) => edit(&|h| set_in_entry(h, *i, "data_offsets", json!([a, b]))),
        Damage::DropTensor(i) => edit(&|h| drop(h.remove(&tensor_name(h, *i)))),
        Damage::CopyUnderNewName(i) => edit(&|h| {
            let name = tensor_name(h, *i);
            if let Some(entry) = h.get(&name).cloned() {
                h.insert(format!("{name}.copy"), entry);
            }
        }),
        Damage::DuplicateEntry(i) if header_parses => {
            let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
            let header: Map<String, Value> = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
            let name = tensor_name(&header, *i);
            let text = serde_json::to_string(&header).unwrap();
            let entry = format!("{}:{}", json!(name), header.get(&name).unwrap_or(&Value::Null));
            with_header(&bytes, text.replacen('{', &format!("{{{entry},"), 1))
        }
        Damage::DuplicateEntry(_) => bytes,
        Damage::Metadata(key, value) => edit(&|h| {
            let text = value.as_str().map_or_else(|| value.to_string(), str::to_string);
            if let Some(meta) = h.get_mut("__metadata__").and_then(Value::as_object_mut) {
                meta.insert(key.to_string(), json!(text));
            }
        }),
        Damage::MetadataField(key, field, value) => edit(&|h| {
            let Some(meta) = h.get_mut("__metadata__").and_then(Value::as_object_mut) else { return };
            let Some(Ok(Value::Object(mut object))) = meta.get(*key).and_then(Value::as_str).map(serde_json::from_str)
            else {
                return;
            };
            object.insert(field.to_string(), value.clone());
            meta.insert(key.to_string(), json!(Value::Object(object).to_string()));
        }),
        Damage::Append(garbage) => [bytes.as_slice(), garbage].concat(),
    }
}

/// A checkpoint that opens must work: next tokens and a short sample, or specific errors.
fn use_it(run: &mut Run) {
    if let Err(e) = run.next_tokens("", 1.0, 3) {
        assert_specific(&e);
    }
    match run.start_sample(SampleConfig { max_new_tokens: 6, ..Default::default() }) {
        Ok(()) => loop {
            match run.sample_next(3) {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => break assert_specific(&e),
            }
        },
        Err(e) => assert_specific(&e),
    }
}

#[test]
fn valid_checkpoints_open_within_the_allocation_bound() {
    for bytes in originals() {
        let (peak, run) = peak_allocation(|| Run::open(&bytes));
        let mut run = run.unwrap();
        assert!(peak <= justified(&bytes), "{peak} bytes allocated for a {}-byte file", bytes.len());
        use_it(&mut run);
    }
}

/// A task whose settings make many problems splits them within the bound (the fuzzer once found
/// p = 238, when the split kept 20 bytes a problem; at p = 1,000 that was 20 MiB).
#[test]
fn a_task_that_makes_many_problems_opens_within_the_allocation_bound() {
    let task = originals().swap_remove(2);
    for p in [238, 1000] {
        let bytes = apply(task.clone(), &Damage::MetadataField("task", "p", json!(p)));
        let (peak, opened) = peak_allocation(|| Run::open(&bytes));
        assert!(peak <= justified(&bytes), "p = {p}: {peak} bytes allocated for a {}-byte file", bytes.len());
        assert!(task_split(&bytes) > 0, "p = {p} is a valid setting");
        // Its vocab is the task's at p = 7, so it opens no further than the check that says so.
        assert_specific(&opened.err().expect("the vocab is p = 7's"));
    }
}

proptest! {
    #![proptest_config(cases(3_000))]

    #[test]
    fn damaged_checkpoints_open_or_say_why_within_the_allocation_bound(
        which in 0usize..3,
        damages in proptest::collection::vec(damage(), 1..3),
    ) {
        thread_local!(static ORIGINALS: Vec<Vec<u8>> = originals());
        let bytes = ORIGINALS.with(|o| o[which].clone());
        let bytes = damages.iter().fold(bytes, apply);
        let (peak, opened) = peak_allocation(|| Run::open(&bytes));
        prop_assert!(peak <= justified(&bytes), "{peak} bytes allocated for a {}-byte file", bytes.len());
        match opened {
            Ok(mut run) => use_it(&mut run),
            Err(e) => assert_specific(&e),
        }
    }
}
