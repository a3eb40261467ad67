//! A run as a nanoGPT checkout expects it: `out-NAME/ckpt.pt` (model, AdamW state, model_args,
//! iter_num, best_val_loss, config), and `data/NAME/` with `meta.pkl` and the run's own text as
//! `train.bin` and `val.bin` (uint16, split as the run split it, as nanoGPT's prepare.py writes
//! them), plus a README with the commands. nanoGPT's `train.py --init_from=resume` and
//! `sample.py` take it as it is.

use super::pickle::{pickle, Py};
use super::torch::{save, Storages};
use crate::data::Split;
use crate::error::{Error, Result};
use crate::ops::{Activation, NormKind};
use crate::optim::ADAM_EPS;
use crate::tokenizer::Tokenizer;
use crate::words::files;
use crate::Run;
use std::collections::HashMap;

/// Our metadata rides in nanoGPT's `config` under this key, which nanoGPT ignores, so an import
/// gets the run back with its history, random state and sampling settings.
pub const OURS: &str = "gpt_playground";

/// The files of the export, each with its path under the folder given.
pub fn export(run: &Run, name: &str) -> Result<Vec<(String, Vec<u8>)>> {
    let name = &folder_name(name);
    check(run)?;
    let Tokenizer::Char(chars) = run.tokenizer() else { unreachable!("check refuses other tokenizers") };
    let text = run.text_data().ok_or_else(|| Error::Config(files::export_needs_text()))?;
    let mut files = vec![(format!("out-{name}/ckpt.pt"), checkpoint(run, name))];
    let tokens = chars.tokens();
    let meta = Py::dict([
        ("vocab_size", Py::Int(tokens.len() as i64)),
        (
            "itos",
            Py::Dict(tokens.iter().enumerate().map(|(i, c)| (Py::Int(i as i64), Py::Str(c.to_string()))).collect()),
        ),
        (
            "stoi",
            Py::Dict(tokens.iter().enumerate().map(|(i, c)| (Py::Str(c.to_string()), Py::Int(i as i64))).collect()),
        ),
    ]);
    files.push((format!("data/{name}/meta.pkl"), pickle(&meta)));
    for (split, file) in [(Split::Train, "train.bin"), (Split::Val, "val.bin")] {
        let mut bytes = Vec::with_capacity(2 * text.len(split));
        text.for_each_in(split, |id| bytes.extend_from_slice(&(id as u16).to_le_bytes()));
        files.push((format!("data/{name}/{file}"), bytes));
    }
    files.push((format!("config/train_{name}.py"), train_config(run, name).into_bytes()));
    files.push(("README.md".into(), readme(name, run.step_count()).into_bytes()));
    Ok(files)
}

/// What nanoGPT cannot hold, named with the setting to change, and where it goes instead.
pub(super) fn check(run: &Run) -> Result<()> {
    let c = run.model().config();
    let refuse = |setting: &str| Err(Error::Config(files::nanogpt_refuses(setting)));
    match () {
        _ if run.task().is_some() => Err(Error::Config(files::nanogpt_task())),
        _ if !matches!(run.tokenizer(), Tokenizer::Char(_)) => refuse("tokenizer"),
        _ if c.norm != NormKind::LayerNorm => refuse("norm"),
        _ if c.activation != Activation::Gelu => refuse("activation"),
        _ if !c.tie_weights => refuse("tie"),
        _ if c.rope => refuse("rope"),
        _ if c.qk_norm => refuse("qk_norm"),
        _ if c.vocab_size > 1 << 16 => Err(Error::Config(files::nanogpt_vocab(c.vocab_size))),
        _ => Ok(()),
    }
}

/// `x` as Python would write it in a config: 0.1, not the f32's 0.10000000149011612.
fn float(x: f32) -> Py {
    Py::Float(x.to_string().parse().expect("an f32 prints as a number"))
}

/// nanoGPT's parameter names in `named_parameters()` order: the order of its optimizer's state.
pub(super) fn parameter_names(n_layer: usize, bias: bool) -> Vec<String> {
    let mut names = vec!["transformer.wte.weight".to_string(), "transformer.wpe.weight".into()];
    for i in 0..n_layer {
        for layer in ["ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"] {
            names.push(format!("transformer.h.{i}.{layer}.weight"));
            if bias {
                names.push(format!("transformer.h.{i}.{layer}.bias"));
            }
        }
    }
    names.push("transformer.ln_f.weight".into());
    if bias {
        names.push("transformer.ln_f.bias".into());
    }
    names
}

/// `ckpt.pt` for `run`, as nanoGPT's train.py saves it.
fn checkpoint(run: &Run, dataset: &str) -> Vec<u8> {
    let (model, train) = (run.model(), run.train_config());
    let c = model.config();
    let params = model.params();
    // AdamW's moments under PyTorch's names; a parameter another optimiser trained has none, and
    // starts AdamW afresh in nanoGPT.
    let optimizer = run.optimizer();
    let state: HashMap<String, &ndarray::ArrayD<f32>> = optimizer.state().into_iter().collect();
    let zeros = |k: usize| ndarray::ArrayD::zeros(params.values[k].raw_dim());
    let mut storages = Storages::default();
    let names = parameter_names(c.n_layer, c.bias);
    let index = |name: &str| params.index(name).expect("a nanoGPT-shaped model has every parameter");
    let tensor = |storages: &mut Storages, a: &ndarray::ArrayD<f32>| storages.tensor(a.shape(), a.iter().copied());
    let mut state_dict: Vec<(Py, Py)> =
        names.iter().map(|n| (Py::Str(n.clone()), tensor(&mut storages, &params.values[index(n)]))).collect();
    // Tied: lm_head is wte's storage, as in PyTorch.
    let wte = state_dict[0].1.clone();
    state_dict.push((Py::str("lm_head.weight"), wte));
    // AdamW's state in nanoGPT's group order: the decayed (2-D and up) parameters first.
    let (decay, rest): (Vec<&String>, Vec<&String>) = names.iter().partition(|n| params.values[index(n)].ndim() >= 2);
    let order: Vec<&String> = decay.iter().chain(&rest).copied().collect();
    let state = order
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let k = index(n);
            let step = storages.tensor(&[], [optimizer.steps() as f32]);
            let mut moment = |kind: &str| match state.get(&format!("{kind}.{n}")) {
                Some(m) => tensor(&mut storages, m),
                None => tensor(&mut storages, &zeros(k)),
            };
            let moments =
                Py::dict([("step", step), ("exp_avg", moment("exp_avg")), ("exp_avg_sq", moment("exp_avg_sq"))]);
            (Py::Int(i as i64), moments)
        })
        .collect();
    let lr = train.schedule().lr(run.step_count());
    let group = |weight_decay: f32, params: std::ops::Range<usize>| {
        Py::dict([
            ("lr", float(lr)),
            ("betas", Py::Tuple(vec![float(train.beta1), float(train.beta2)])),
            ("eps", float(ADAM_EPS)),
            ("weight_decay", float(weight_decay)),
            ("amsgrad", Py::Bool(false)),
            ("foreach", Py::None),
            ("maximize", Py::Bool(false)),
            ("capturable", Py::Bool(false)),
            ("differentiable", Py::Bool(false)),
            ("fused", Py::None),
            ("params", Py::List(params.map(|i| Py::Int(i as i64)).collect())),
        ])
    };
    let groups = Py::List(vec![group(train.weight_decay, 0..decay.len()), group(0.0, decay.len()..order.len())]);
    let mut ours: Vec<_> = crate::checkpoint::metadata(&run.snapshot()).into_iter().collect();
    ours.sort(); // a HashMap's order is random; the file should not be
    let mut config = recipe(run, dataset);
    config.push((OURS, Py::Dict(ours.into_iter().map(|(k, v)| (Py::Str(k), Py::Str(v))).collect())));
    let best = run.history().evals.iter().map(|e| e.val_loss).reduce(f32::min).map_or(Py::Float(1e9), float);
    let value = Py::dict([
        ("model", Py::Dict(state_dict)),
        ("optimizer", Py::dict([("state", Py::Dict(state)), ("param_groups", groups)])),
        ("model_args", Py::dict(model_args(c))),
        ("iter_num", Py::Int(run.step_count() as i64)),
        ("best_val_loss", best),
        ("config", Py::dict(config)),
    ]);
    save(&value, &storages)
}

/// nanoGPT's `model_args`: what its GPTConfig takes.
fn model_args(c: &crate::config::GPTConfig) -> Vec<(&'static str, Py)> {
    vec![
        ("n_layer", Py::Int(c.n_layer as i64)),
        ("n_head", Py::Int(c.n_head as i64)),
        ("n_embd", Py::Int(c.n_embd as i64)),
        ("block_size", Py::Int(c.block_size as i64)),
        ("bias", Py::Bool(c.bias)),
        ("vocab_size", Py::Int(c.vocab_size as i64)),
        ("dropout", float(c.dropout)),
    ]
}

/// The settings train.py runs with: nanoGPT's config globals for this run, as its checkpoint's
/// `config` holds them and as the exported config file sets them.
fn recipe(run: &Run, dataset: &str) -> Vec<(&'static str, Py)> {
    let train = run.train_config();
    let mut recipe = vec![
        ("out_dir", Py::str(format!("out-{dataset}"))),
        ("eval_interval", Py::Int(train.eval_interval() as i64)),
        ("eval_iters", Py::Int(train.eval_iters as i64)),
        ("init_from", Py::str("resume")),
        ("dataset", Py::str(dataset)),
        ("gradient_accumulation_steps", Py::Int(1)),
        ("batch_size", Py::Int(train.batch_size as i64)),
        ("learning_rate", float(train.learning_rate)),
        ("max_iters", Py::Int(train.max_iters as i64)),
        ("weight_decay", float(train.weight_decay)),
        ("beta1", float(train.beta1)),
        ("beta2", float(train.beta2)),
        ("grad_clip", float(train.grad_clip)),
        ("decay_lr", Py::Bool(train.decay_lr)),
        ("warmup_iters", Py::Int(train.warmup_iters as i64)),
        ("lr_decay_iters", Py::Int(train.lr_decay_iters.unwrap_or(train.max_iters) as i64)),
        ("min_lr", float(train.min_lr)),
        ("device", Py::str("cpu")),
        ("dtype", Py::str("float32")),
        ("compile", Py::Bool(false)),
    ];
    recipe.extend(model_args(run.model().config()));
    recipe
}

/// A nanoGPT config file with the run's recipe: train.py takes its settings from here, not from
/// the checkpoint, so resuming without it would train with nanoGPT's defaults.
fn train_config(run: &Run, name: &str) -> String {
    let mut lines = vec!["# The recipe of the gpt-playground run exported here, for nanoGPT's train.py.".to_string()];
    let file_only = [("log_interval", Py::Int(10)), ("always_save_checkpoint", Py::Bool(false))];
    lines.extend(recipe(run, name).iter().chain(&file_only).map(|(key, value)| format!("{key} = {}", value.literal())));
    lines.join("\n") + "\n"
}

fn readme(name: &str, step: usize) -> String {
    format!(
        "# A gpt-playground run for nanoGPT, at step {step}\n\n\
         Copy `out-{name}/`, `data/{name}/` and `config/train_{name}.py` into a nanoGPT checkout \
         (https://github.com/karpathy/nanoGPT), then, there:\n\n\
         ```sh\n\
         # sample from it\n\
         python sample.py --out_dir=out-{name} --device=cpu\n\
         # train on from step {step} with the run's recipe (raise --max_iters to go further)\n\
         python train.py config/train_{name}.py\n\
         # the same on 8 GPUs\n\
         torchrun --standalone --nproc_per_node=8 train.py config/train_{name}.py --device=cuda --compile=True\n\
         ```\n"
    )
}

/// `name` as a folder name nanoGPT's `--dataset` and `--out_dir` take: letters, digits, `-` and `_`.
pub(super) fn folder_name(name: &str) -> String {
    let cleaned: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if cleaned.trim_matches('_').is_empty() {
        "gpt_playground".into()
    } else {
        cleaned
    }
}
