//! `gpt::interop::hf`: a run as a Transformers folder. GPT-2's names and Conv1D layout, zero
//! biases where the run has none, the run's vocabulary in tokenizer.json; what GPT-2 lacks goes
//! as Starcoder2 (rotary with LayerNorm) or with our modelling code, the weights as they are; a task's run with its symbols and held-out
//! problems. (python/check_transformers.py loads each in Transformers and TransformerLens.)

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
fn what_gpt2_lacks_goes_with_our_modelling_code_and_the_weights_as_they_are() {
    let settings = [
        GPTConfig { norm: NormKind::RmsNorm, ..small() },
        GPTConfig { rope: true, qk_norm: true, ..small() },
        GPTConfig { qk_norm: true, tie_weights: false, bias: true, ..small() },
    ];
    for model in settings {
        let run = trained(model.clone(), TokenizerKind::Char, 1);
        let files = export(&run).unwrap();
        let config: serde_json::Value = serde_json::from_slice(file(&files, "config.json")).unwrap();
        assert_eq!(config["model_type"], "gpt_playground");
        assert_eq!(config["auto_map"]["AutoModelForCausalLM"], "modeling_gpt_playground.GptPlaygroundForCausalLM");
        let settings: GPTConfig = serde_json::from_value(serde_json::json!({
            "vocab_size": config["vocab_size"], "block_size": config["block_size"], "n_layer": config["n_layer"],
            "n_head": config["n_head"], "n_embd": config["n_embd"], "dropout": config["dropout"], "bias": config["bias"],
            "norm": config["norm"], "activation": config["activation"], "tie_weights": config["tie_weights"],
            "rope": config["rope"], "qk_norm": config["qk_norm"],
        }))
        .unwrap();
        assert_eq!(&settings, run.model().config());
        assert_eq!(config["tie_word_embeddings"], model.tie_weights);
        assert!(file(&files, "modeling_gpt_playground.py").starts_with(b"\"\"\"gpt-playground's GPT"));
        let weights = SafeTensors::deserialize(file(&files, "model.safetensors")).unwrap();
        let params = run.model().params();
        assert_eq!(weights.len(), params.names.len(), "{model:?}: every weight, under its own name, nothing else");
        for (name, value) in params.names.iter().zip(&params.values) {
            let t = weights.tensor(name).unwrap();
            let stored: Vec<f32> =
                t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
            assert_eq!((t.shape(), stored.as_slice()), (value.shape(), value.as_slice().unwrap()), "{name}");
        }
    }
}

#[test]
fn rotary_runs_with_layernorm_go_as_starcoder2_their_qkv_rows_split() {
    for model in
        [GPTConfig { rope: true, ..small() }, GPTConfig { rope: true, bias: true, tie_weights: false, ..small() }]
    {
        let run = trained(model.clone(), TokenizerKind::Char, 1);
        let files = export(&run).unwrap();
        let config: serde_json::Value = serde_json::from_slice(file(&files, "config.json")).unwrap();
        assert_eq!(
            (config["model_type"].as_str(), config["use_bias"].as_bool()),
            (Some("starcoder2"), Some(model.bias))
        );
        assert_eq!(config["rope_parameters"]["rope_theta"], 10000.0);
        assert!(files.iter().all(|(n, _)| n != "modeling_gpt_playground.py"), "Transformers' own code runs it");
        let weights = SafeTensors::deserialize(file(&files, "model.safetensors")).unwrap();
        let values = |name: &str| -> Vec<f32> {
            let t = weights.tensor(name).unwrap();
            t.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect()
        };
        let params = run.model().params();
        let c_attn = params.get("transformer.h.1.attn.c_attn.weight").unwrap().as_slice().unwrap(); // (3C, C)
        for (k, x) in ["q", "k", "v"].into_iter().enumerate() {
            let name = format!("model.layers.1.self_attn.{x}_proj.weight");
            assert_eq!(weights.tensor(&name).unwrap().shape(), [8, 8]);
            assert_eq!(values(&name), c_attn[k * 64..(k + 1) * 64], "{name}: rows {k}C..{}C of c_attn", k + 1);
        }
        let ln_bias = values("model.layers.0.input_layernorm.bias");
        if model.bias {
            let bias = params.get("transformer.h.0.attn.c_attn.bias").unwrap().as_slice().unwrap();
            assert_eq!(values("model.layers.0.self_attn.v_proj.bias"), bias[16..]);
            assert_eq!(ln_bias, params.get("transformer.h.0.ln_1.bias").unwrap().as_slice().unwrap());
            assert_eq!(values("lm_head.weight"), params.get("lm_head.weight").unwrap().as_slice().unwrap());
        } else {
            assert_eq!(ln_bias, vec![0.0; 8], "Starcoder2's LayerNorms always have biases: zeros");
            assert!(weights.tensor("model.layers.0.self_attn.q_proj.bias").is_err(), "use_bias=false: none");
            assert!(weights.tensor("lm_head.weight").is_err());
        }
        assert_eq!(values("model.norm.weight"), params.get("transformer.ln_f.weight").unwrap().as_slice().unwrap());
    }
}

#[test]
fn a_task_goes_with_its_symbols_and_held_out_problems() {
    let run = task_run();
    let files = export(&run).unwrap();
    let tokenizer: serde_json::Value = serde_json::from_slice(file(&files, "tokenizer.json")).unwrap();
    assert_eq!(
        (tokenizer["model"]["type"].as_str(), tokenizer["model"]["continuing_subword_prefix"].as_str()),
        (Some("WordPiece"), Some(""))
    );
    let vocab = tokenizer["model"]["vocab"].as_object().unwrap();
    assert_eq!(vocab.len(), run.vocab_size());
    assert!(vocab.iter().all(|(token, id)| run.tokenizer().token_text(id.as_u64().unwrap() as u32) == *token));
    let problems = std::str::from_utf8(file(&files, "held_out.jsonl")).unwrap();
    let solutions = run.held_out_solutions(100).unwrap();
    assert_eq!(problems.lines().count(), solutions.len());
    for (line, solution) in problems.lines().zip(&solutions) {
        let p: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = |key: &str| p[key].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect::<String>();
        assert_eq!((text("prompt"), text("answer")), (solution.prompt.clone(), solution.expected.clone()));
        assert_eq!(
            (&p["playground_answer"], &p["playground_correct"]),
            (&solution.answer.clone().into(), &solution.correct.into())
        );
    }
    let right = solutions.iter().filter(|s| s.correct).count();
    let readme = String::from_utf8(file(&files, "README.md").to_vec()).unwrap();
    assert!(readme.contains(&format!("{right} of {} right", solutions.len())), "{readme}");
}
