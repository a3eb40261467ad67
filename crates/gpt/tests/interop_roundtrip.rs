//! The way back: each export imports again to the same run (weights, optimizer state, step and
//! text), a Transformers folder changed outside comes back from its config and tokenizer, and
//! a damaged or mismatched import says what is wrong.

use gpt::interop::{bundle, hf, import, nanogpt};
use gpt::ops::{Activation, NormKind};
use gpt::{GPTConfig, Run, TokenizerKind};
use std::collections::HashMap;

mod interop_runs;

use interop_runs::{small, task_run, trained, TEXT};

fn borrowed(files: &[(String, Vec<u8>)]) -> Vec<(String, &[u8])> {
    files.iter().map(|(n, b)| (n.clone(), b.as_slice())).collect()
}

/// Asserts `back` is `run`: model, tokenizer and step, and the optimizer's moments when `moments`.
fn assert_same(run: &Run, back: &Run, moments: bool) {
    assert_eq!(back.model().config(), run.model().config());
    assert_eq!(back.tokenizer(), run.tokenizer());
    assert_eq!(back.step_count(), run.step_count());
    assert_eq!(back.model().params().values, run.model().params().values);
    if moments {
        assert_eq!(back.optimizer().state(), run.optimizer().state());
        assert_eq!(back.optimizer().steps(), run.optimizer().steps());
        assert_eq!(back.history(), run.history());
    }
}

#[test]
fn a_nanogpt_export_comes_back_whole_with_its_text() {
    let run = trained(GPTConfig { bias: true, ..small() }, TokenizerKind::Char, 3);
    let imported = import(&borrowed(&nanogpt::export(&run, "names").unwrap())).unwrap();
    assert_eq!((imported.from, imported.text.as_deref()), ("nanoGPT", Some(TEXT.repeat(20).as_str())));
    assert_same(&run, &Run::open(&imported.checkpoint).unwrap(), true);
}

#[test]
fn a_transformers_export_comes_back() {
    for (model, tokenizer) in [
        (small(), TokenizerKind::Char),
        (GPTConfig { tie_weights: false, activation: Activation::Relu, ..small() }, TokenizerKind::Bpe),
        (GPTConfig { activation: Activation::GeluTanh, bias: true, ..small() }, TokenizerKind::Char),
        (GPTConfig { rope: true, qk_norm: true, norm: NormKind::RmsNorm, ..small() }, TokenizerKind::Char),
        (GPTConfig { rope: true, tie_weights: false, bias: true, ..small() }, TokenizerKind::Bpe),
        (GPTConfig { rope: true, activation: Activation::GeluTanh, ..small() }, TokenizerKind::Char),
    ] {
        let run = trained(model, tokenizer, 3);
        let imported = import(&borrowed(&hf::export(&run).unwrap())).unwrap();
        assert_eq!((imported.from, imported.text), ("Transformers", None));
        assert_same(&run, &Run::open(&imported.checkpoint).unwrap(), false);
    }
}

#[test]
fn the_page_zip_comes_back_through_nanogpt() {
    let run = trained(small(), TokenizerKind::Char, 3);
    let zip = bundle(&run, "names").unwrap();
    let imported = import(&[("names-export.zip".into(), &zip)]).unwrap();
    assert_eq!(imported.from, "nanoGPT");
    assert!(imported.text.is_some());
    assert_same(&run, &Run::open(&imported.checkpoint).unwrap(), true);

    // A run only Transformers holds: the zip has its folder, and says why nanoGPT's is missing.
    let bpe = trained(small(), TokenizerKind::Bpe, 1);
    let left_out = gpt::interop::left_out(&bpe);
    assert!(left_out.len() == 1 && left_out[0].starts_with("not for nanoGPT: "), "{left_out:?}");
    let imported = import(&[("bpe-export.zip".into(), &bundle(&bpe, "bpe").unwrap())]).unwrap();
    assert_eq!(imported.from, "Transformers");
    assert_same(&bpe, &Run::open(&imported.checkpoint).unwrap(), false);
    // So does a task's run, which comes back with its task.
    let task = task_run();
    let imported = import(&[("reverse-export.zip".into(), &bundle(&task, "reverse").unwrap())]).unwrap();
    let back = Run::open(&imported.checkpoint).unwrap();
    assert_same(&task, &back, false);
    assert_eq!(back.task().map(|t| t.config()), task.task().map(|t| t.config()));
}

/// `model.safetensors` as Transformers' save_pretrained writes it: only `format: pt` in its header.
fn as_saved_by_transformers(weights: &[u8], change: impl Fn(&str, &mut [f32])) -> Vec<u8> {
    let file = safetensors::SafeTensors::deserialize(weights).unwrap();
    let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = file
        .iter()
        .map(|(name, t)| {
            let mut values: Vec<f32> =
                t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
            change(name, &mut values);
            (name.to_string(), t.shape().to_vec(), values.iter().flat_map(|x| x.to_le_bytes()).collect())
        })
        .collect();
    let views = tensors.iter().map(|(n, s, d)| {
        (n.as_str(), safetensors::tensor::TensorView::new(safetensors::Dtype::F32, s.clone(), d).unwrap())
    });
    safetensors::serialize(views, Some(HashMap::from([("format".to_string(), "pt".to_string())]))).unwrap()
}

/// `run`'s Transformers folder as Transformers saves it again (none of our metadata), its
/// config.json edited.
fn saved_by_transformers(run: &Run, edit_config: impl Fn(String) -> String) -> Vec<(String, Vec<u8>)> {
    let mut files = hf::export(run).unwrap();
    for (name, bytes) in &mut files {
        match name.as_str() {
            "model.safetensors" => *bytes = as_saved_by_transformers(bytes, |_, _| {}),
            "config.json" => *bytes = edit_config(String::from_utf8(bytes.clone()).unwrap()).into_bytes(),
            _ => {}
        }
    }
    files
}

#[test]
fn a_model_changed_in_transformers_comes_back_from_its_config_and_tokenizer() {
    let run = trained(small(), TokenizerKind::Bpe, 3);
    let mut files = hf::export(&run).unwrap();
    let weights = files.iter().position(|(n, _)| n == "model.safetensors").unwrap();
    files[weights].1 = as_saved_by_transformers(&files[weights].1, |_, _| {});
    let back = Run::open(&import(&borrowed(&files)).unwrap().checkpoint).unwrap();
    assert_eq!(back.model().params().values, run.model().params().values, "zero biases dropped again");
    assert_eq!(back.tokenizer(), run.tokenizer());

    // Trained on in Transformers, its biases are no longer zero: they come back.
    files[weights].1 = as_saved_by_transformers(&files[weights].1, |name, v| {
        if name == "transformer.h.1.mlp.c_fc.bias" {
            v[3] = 0.25;
        }
    });
    let back = Run::open(&import(&borrowed(&files)).unwrap().checkpoint).unwrap();
    assert!(back.model().config().bias);
    assert_eq!(back.model().params().get("transformer.h.1.mlp.c_fc.bias").unwrap()[3], 0.25);

    // A Starcoder2 trained on in Transformers: its LayerNorm biases come back, its linear layers'
    // (use_bias=false) as zeros.
    let rotary = trained(GPTConfig { rope: true, ..small() }, TokenizerKind::Char, 3);
    let mut files = hf::export(&rotary).unwrap();
    let weights = files.iter().position(|(n, _)| n == "model.safetensors").unwrap();
    files[weights].1 = as_saved_by_transformers(&files[weights].1, |name, v| {
        if name == "model.layers.0.input_layernorm.bias" {
            v[1] = 0.5;
        }
    });
    let back = Run::open(&import(&borrowed(&files)).unwrap().checkpoint).unwrap();
    let params = back.model().params();
    assert!(back.model().config().bias && back.model().config().rope);
    assert_eq!(params.get("transformer.h.0.ln_1.bias").unwrap()[1], 0.5);
    assert!(params.get("transformer.h.1.attn.c_attn.bias").unwrap().iter().all(|&b| b == 0.0));
    assert_eq!(
        params.get("transformer.h.1.attn.c_attn.weight"),
        rotary.model().params().get("transformer.h.1.attn.c_attn.weight")
    );

    // Our own modelling code's folder, and a task's symbols, come back the same way.
    for run in [trained(GPTConfig { rope: true, qk_norm: true, ..small() }, TokenizerKind::Bpe, 3), task_run()] {
        let mut files = hf::export(&run).unwrap();
        let weights = files.iter().position(|(n, _)| n == "model.safetensors").unwrap();
        files[weights].1 = as_saved_by_transformers(&files[weights].1, |_, _| {});
        let back = Run::open(&import(&borrowed(&files)).unwrap().checkpoint).unwrap();
        assert_eq!(back.model().config(), run.model().config());
        assert_eq!(back.model().params().values, run.model().params().values);
        assert_eq!(back.tokenizer(), run.tokenizer());
        assert_eq!(back.task().map(|t| t.config()), run.task().map(|t| t.config()), "a task's run keeps its task");
    }
}

#[test]
fn a_damaged_or_mismatched_import_says_what_is_wrong() {
    let run = trained(small(), TokenizerKind::Char, 3);
    let nano = nanogpt::export(&run, "names").unwrap();
    let message = |files: Vec<(String, Vec<u8>)>| match import(&borrowed(&files)) {
        Ok(imported) => Run::open(&imported.checkpoint).err().expect("refused").to_string(),
        Err(e) => e.to_string(),
    };
    let ckpt = nano[0].1.clone();
    let cut = vec![("ckpt.pt".to_string(), ckpt[..ckpt.len() / 2].to_vec())];
    assert!(message(cut).contains("this zip is cut short or is not a zip"));
    let mut damaged = ckpt.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x40;
    assert!(message(vec![("ckpt.pt".into(), damaged)]).contains("does not match its checksum"));
    let two_vocabularies = vec![nano[0].clone(), nano[1].clone(), ("other/meta.pkl".into(), nano[1].1.clone())];
    assert!(message(two_vocabularies).contains("more than one meta.pkl"));
    let two_runs = vec![nano[0].clone(), ("other/ckpt.pt".into(), nano[0].1.clone()), nano[1].clone()];
    assert!(message(two_runs).contains("more than one PyTorch checkpoint"));
    assert!(message(vec![("x.txt".into(), b"hello".to_vec()), ("y.txt".into(), vec![])])
        .contains("none of these files is a model"));

    let hf_files = saved_by_transformers(&run, |c| c);
    let weights = hf_files.iter().position(|(n, _)| n == "model.safetensors").unwrap();
    let alone = vec![hf_files[weights].clone()];
    assert!(message(alone).contains("needs its config.json and tokenizer.json too"));
    let tokenizer = hf_files.iter().position(|(n, _)| n == "tokenizer.json").unwrap();
    let mut foreign = hf_files;
    foreign[tokenizer].1 = br#"{"model": {"type": "WordPiece", "vocab": {"a": 0}}}"#.to_vec();
    assert!(message(foreign).contains("not one the playground writes"));
    let other = saved_by_transformers(&run, |c| c.replace("\"gelu\"", "\"silu\""));
    assert!(message(other).contains("uses the activation Some(\"silu\")"));

    let rotary = trained(GPTConfig { rope: true, ..small() }, TokenizerKind::Char, 1);
    let starcoder2 =
        saved_by_transformers(&rotary, |c| c.replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 1"));
    assert!(message(starcoder2).contains("shares keys and values between heads"));

    let qk_norm = trained(GPTConfig { rope: true, qk_norm: true, ..small() }, TokenizerKind::Char, 1);
    let ours = saved_by_transformers(&qk_norm, |c| c.replace("\"layernorm\"", "\"batchnorm\""));
    assert!(message(ours).contains("config.json has a setting the playground cannot read"));
}

/// `ckpt.pt` as nanoGPT's train.py saves it after torch.compile: no metadata of ours, the
/// parameters under `_orig_mod.`, the recipe in `config`, no optimizer state.
fn as_saved_by_nanogpt(run: &Run) -> Vec<u8> {
    use gpt::interop::pickle::Py;
    let mut storages = gpt::interop::torch::Storages::default();
    let params = run.model().params();
    let mut model: Vec<(Py, Py)> = params
        .names
        .iter()
        .zip(&params.values)
        .map(|(n, v)| (Py::Str(format!("_orig_mod.{n}")), storages.tensor(v.shape(), v.iter().copied())))
        .collect();
    let wte = model[0].1.clone();
    model.push((Py::str("_orig_mod.lm_head.weight"), wte));
    let c = run.model().config();
    let int = |n: usize| Py::Int(n as i64);
    let args = [("n_layer", int(c.n_layer)), ("n_head", int(c.n_head)), ("n_embd", int(c.n_embd))];
    let args = args.into_iter().chain([
        ("block_size", int(c.block_size)),
        ("bias", Py::Bool(c.bias)),
        ("vocab_size", int(c.vocab_size)),
        ("dropout", Py::Float(0.0)),
    ]);
    let value = Py::dict([
        ("model", Py::Dict(model)),
        ("optimizer", Py::dict([("state", Py::Dict(vec![])), ("param_groups", Py::List(vec![]))])),
        ("model_args", Py::dict(args)),
        ("iter_num", Py::Int(250)),
        ("best_val_loss", Py::Float(1.5)),
        (
            "config",
            Py::dict([("batch_size", Py::Int(12)), ("learning_rate", Py::Float(1e-3)), ("compile", Py::Bool(true))]),
        ),
    ]);
    gpt::interop::torch::save(&value, &storages)
}

#[test]
fn a_checkpoint_nanogpt_wrote_comes_back_with_its_meta_pkl() {
    let run = trained(small(), TokenizerKind::Char, 3);
    let meta = nanogpt::export(&run, "names").unwrap().remove(1);
    assert_eq!(meta.0, "data/names/meta.pkl");
    let ckpt = ("out/ckpt.pt".to_string(), as_saved_by_nanogpt(&run));
    let without_meta = import(&borrowed(std::slice::from_ref(&ckpt))).err().unwrap().to_string();
    assert!(without_meta.contains("choose its meta.pkl"), "{without_meta}");
    let imported = import(&borrowed(&[ckpt, meta])).unwrap();
    let back = Run::open(&imported.checkpoint).unwrap();
    assert_eq!(back.model().params().values, run.model().params().values);
    assert_eq!(back.tokenizer(), run.tokenizer());
    assert_eq!(back.step_count(), 250, "nanoGPT's iter_num");
    assert_eq!((back.train_config().batch_size, back.train_config().learning_rate), (12, 1e-3));
}
