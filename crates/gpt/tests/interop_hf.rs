//! `gpt::interop::hf`: a run as Transformers' GPT-2 folder. GPT-2's names and Conv1D layout, zero
//! biases where the run has none, the run's vocabulary in tokenizer.json, and refusals that name
//! the setting to change. (python/check_transformers.py loads it in Transformers itself.)

use gpt::interop::hf::export;
use gpt::ops::{Activation, NormKind};
use gpt::{GPTConfig, TokenizerKind};
use safetensors::SafeTensors;

mod interop_runs;

use interop_runs::{small, task_run, trained};

fn file<'a>(files: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &files.iter().find(|(path, _)| path == name).unwrap().1
}

#[test]
fn weights_take_gpt2_names_and_layout() {
    let run = trained(small(), TokenizerKind::Char, 0);
    let files = export(&run).unwrap();
    let weights = SafeTensors::deserialize(file(&files, "model.safetensors")).unwrap();
    let values = |name: &str| -> Vec<f32> {
        let t = weights.tensor(name).unwrap();
        t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect()
    };
    let ours = run.model().params().get("transformer.h.0.attn.c_attn.weight").unwrap(); // (3C, C)
    assert_eq!(weights.tensor("transformer.h.0.attn.c_attn.weight").unwrap().shape(), [8, 24]);
    let transposed: Vec<f32> = ours.t().iter().copied().collect();
    assert_eq!(values("transformer.h.0.attn.c_attn.weight"), transposed);
    assert_eq!(values("transformer.h.0.mlp.c_fc.bias"), vec![0.0; 32], "no biases in the run: zeros");
    assert_eq!(values("transformer.ln_f.bias"), vec![0.0; 8]);
    assert!(weights.tensor("lm_head.weight").is_err(), "tied: Transformers ties lm_head to wte itself");
    let config: serde_json::Value = serde_json::from_slice(file(&files, "config.json")).unwrap();
    assert_eq!((config["model_type"].as_str(), config["n_positions"].as_u64()), (Some("gpt2"), Some(8)));
    assert_eq!(config["activation_function"], "gelu");
    let tokenizer: serde_json::Value = serde_json::from_slice(file(&files, "tokenizer.json")).unwrap();
    assert_eq!(tokenizer["model"]["vocab"]["\n"], 0);
    assert_eq!(tokenizer["model"]["vocab"].as_object().unwrap().len(), run.vocab_size());

    let untied =
        trained(GPTConfig { tie_weights: false, activation: Activation::Relu, ..small() }, TokenizerKind::Bpe, 0);
    let files = export(&untied).unwrap();
    let weights = SafeTensors::deserialize(file(&files, "model.safetensors")).unwrap();
    assert_eq!(weights.tensor("lm_head.weight").unwrap().shape(), [untied.vocab_size(), 8]);
    let config: serde_json::Value = serde_json::from_slice(file(&files, "config.json")).unwrap();
    assert_eq!(
        (config["activation_function"].as_str(), config["tie_word_embeddings"].as_bool()),
        (Some("relu"), Some(false))
    );
    let tokenizer: serde_json::Value = serde_json::from_slice(file(&files, "tokenizer.json")).unwrap();
    assert_eq!(tokenizer["model"]["vocab"]["Ċ"], 10, "byte 10 (a newline) under GPT-2's stand-in");
    assert_eq!(tokenizer["model"]["merges"].as_array().unwrap().len(), untied.vocab_size() - 256);
}

#[test]
fn what_gpt2_lacks_is_refused_with_the_setting_to_change() {
    let cases = [
        (GPTConfig { norm: NormKind::RmsNorm, ..small() }, "set Norm to LayerNorm"),
        (GPTConfig { rope: true, ..small() }, "untick RoPE"),
        (GPTConfig { qk_norm: true, ..small() }, "untick QK-norm"),
    ];
    for (model, says) in cases {
        let message = export(&trained(model, TokenizerKind::Char, 0)).unwrap_err().to_string();
        assert!(message.contains(says), "{says}: {message}");
    }
    let run = task_run();
    assert!(export(&run).unwrap_err().to_string().contains("train on a text"));
}
