//! A run as Hugging Face Transformers' GPT-2: `config.json`, `model.safetensors` (GPT-2's names,
//! its Conv1D layout, zero biases where the run has none), `tokenizer.json` with the run's own
//! vocabulary, `tokenizer_config.json` and `generation_config.json`. `AutoModelForCausalLM` and
//! `AutoTokenizer` load the folder as it is; the run's own metadata rides in the safetensors
//! header, so an import gets the run back with its history.

use super::hf_tokenizer::tokenizer_json;
use crate::checkpoint::{le_bytes, Tensor};
use crate::error::{Error, Result};
use crate::ops::{Activation, NormKind};
use crate::run::Run;
use ndarray::Axis;
use serde_json::json;

/// The layers GPT-2 keeps as Conv1D, whose weights are stored (in, out): ours are (out, in).
pub const CONV1D: [&str; 4] = ["attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"];
/// Where our metadata's `format` goes: Transformers wants `format` to say "pt".
pub const OURS: &str = "gpt_playground";

/// The files of the export, each with its path under the folder given.
pub fn export(run: &Run) -> Result<Vec<(String, Vec<u8>)>> {
    check(run)?;
    let tokenizer = tokenizer_json(run.tokenizer())?;
    let c = run.model().config();
    let config = json!({
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": c.vocab_size,
        "n_positions": c.block_size,
        "n_embd": c.n_embd,
        "n_layer": c.n_layer,
        "n_head": c.n_head,
        "n_inner": null,
        "activation_function": activation_name(c.activation),
        "resid_pdrop": c.dropout,
        "embd_pdrop": c.dropout,
        "attn_pdrop": c.dropout,
        "layer_norm_epsilon": crate::ops::norm::NORM_EPS,
        "scale_attn_weights": true,
        "tie_word_embeddings": c.tie_weights,
        "bos_token_id": null,
        "eos_token_id": null,
        "pad_token_id": null,
        "dtype": "float32",
    });
    let sampling = run.last_sample().cloned().unwrap_or_default();
    let generation = json!({
        "do_sample": sampling.temperature > 0.0,
        "temperature": if sampling.temperature > 0.0 { sampling.temperature } else { 1.0 },
        "top_k": sampling.top_k,
        // GPT-2 cannot look past its position table, so text stops at the block size.
        "max_length": c.block_size,
        "bos_token_id": null,
        "eos_token_id": null,
        "pad_token_id": null,
    });
    let tokenizer_config = json!({
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": false,
        "model_max_length": c.block_size,
    });
    let pretty = |v: serde_json::Value| serde_json::to_vec_pretty(&v).expect("plain JSON serialises");
    Ok(vec![
        ("config.json".into(), pretty(config)),
        ("generation_config.json".into(), pretty(generation)),
        ("model.safetensors".into(), weights(run)?),
        ("tokenizer.json".into(), pretty(tokenizer)),
        ("tokenizer_config.json".into(), pretty(tokenizer_config)),
        ("README.md".into(), readme(run.step_count()).into_bytes()),
    ])
}

/// Transformers' name for `activation`: "gelu_new" is GPT-2's own tanh approximation.
pub fn activation_name(activation: Activation) -> &'static str {
    match activation {
        Activation::Gelu => "gelu",
        Activation::GeluTanh => "gelu_new",
        Activation::Relu => "relu",
    }
}

/// What Transformers' GPT-2 cannot hold, named with the setting to change.
pub(super) fn check(run: &Run) -> Result<()> {
    let c = run.model().config();
    let refuse = |why: &str| Err(Error::Config(format!("{why} and train again to export for Transformers")));
    match () {
        _ if run.task().is_some() => Err(Error::Config(
            "this run trains on a task, whose tokens Transformers' tokenizers do not hold; \
             train on a text to export for Transformers"
                .into(),
        )),
        _ if c.norm != NormKind::LayerNorm => {
            refuse("Transformers' GPT-2 has LayerNorm, not RMSNorm: set Norm to LayerNorm")
        }
        _ if c.rope => refuse("Transformers' GPT-2 has a learned position table, not RoPE: untick RoPE"),
        _ if c.qk_norm => refuse("Transformers' GPT-2 has no QK-norm: untick QK-norm"),
        _ => Ok(()),
    }
}

/// `model.safetensors`: every GPT-2 tensor, Conv1D weights transposed, missing biases as zeros.
fn weights(run: &Run) -> Result<Vec<u8>> {
    let model = run.model();
    let (c, params) = (model.config(), model.params());
    let mut tensors: Vec<Tensor> = Vec::new();
    for name in gpt2_names(c.n_layer, c.tie_weights) {
        let (shape, bytes) = match params.get(&name) {
            // Conv1D keeps (in, out): the transposed view's logical order is that layout.
            Some(w) if CONV1D.iter().any(|l| name.ends_with(&format!("{l}.weight"))) => {
                (w.shape().iter().rev().copied().collect(), le_bytes(w.t()))
            }
            Some(w) => (w.shape().to_vec(), le_bytes(w)),
            None => {
                // A bias the run has none of: zeros as long as its weight's output side.
                let weight = params.get(&name.replace(".bias", ".weight")).expect("every bias has its weight");
                let n = weight.len_of(Axis(0));
                (vec![n], vec![0; 4 * n])
            }
        };
        tensors.push((name, shape, bytes));
    }
    let mut metadata = crate::checkpoint::metadata(&run.snapshot());
    let ours = metadata.insert("format".into(), "pt".into()).expect("a checkpoint names its format");
    metadata.insert(OURS.into(), ours);
    crate::checkpoint::serialize(&tensors, metadata)
}

/// GPT-2's tensor names in Transformers, biases included, lm_head only when it is not tied.
pub fn gpt2_names(n_layer: usize, tied: bool) -> Vec<String> {
    let mut names = vec!["transformer.wte.weight".to_string(), "transformer.wpe.weight".into()];
    for i in 0..n_layer {
        for layer in ["ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"] {
            names.extend(["weight", "bias"].map(|p| format!("transformer.h.{i}.{layer}.{p}")));
        }
    }
    names.extend(["transformer.ln_f.weight".into(), "transformer.ln_f.bias".into()]);
    if !tied {
        names.push("lm_head.weight".into());
    }
    names
}

fn readme(step: usize) -> String {
    format!(
        "# A gpt-playground run for Hugging Face Transformers, at step {step}\n\n\
         A GPT-2 model with the run's own tokenizer. In Python, with `transformers` installed:\n\n\
         ```python\n\
         from transformers import AutoModelForCausalLM, AutoTokenizer\n\
         model = AutoModelForCausalLM.from_pretrained(\"this-folder\")\n\
         tokenizer = AutoTokenizer.from_pretrained(\"this-folder\")\n\
         ids = tokenizer(\"\\n\", return_tensors=\"pt\").input_ids\n\
         print(tokenizer.decode(model.generate(ids, max_new_tokens=200)[0]))\n\
         ```\n\n\
         `model.push_to_hub(...)` and `tokenizer.push_to_hub(...)` put it on the Hub, and any trainer \
         built on Transformers trains it further.\n"
    )
}
