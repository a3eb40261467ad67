//! A run as a Hugging Face Transformers folder: `config.json`, `model.safetensors`,
//! `tokenizer.json` with the run's own vocabulary, `tokenizer_config.json` and
//! `generation_config.json`, plus a task's held-out problems. GPT-2 holds nanoGPT's model (its
//! names, its Conv1D layout, zero biases where the run has none), Starcoder2 its rotary runs
//! (`hf_starcoder2.rs`); every other run goes with our modelling code (`hf_remote.rs`). `AutoModelForCausalLM` and `AutoTokenizer` load the folder as
//! it is; the run's own metadata rides in the safetensors header, so an import gets the run back
//! with its history.

use super::hf_shared::{activation_name, zero_bias};
use super::hf_tokenizer::tokenizer_json;
use super::{hf_remote, hf_starcoder2, hf_task};
use crate::checkpoint::{le_bytes, Tensor};
use crate::config::{Architecture, GPTConfig};
use crate::error::Result;
use crate::Run;
use serde_json::json;
use std::collections::HashMap;

/// The layers GPT-2 keeps as Conv1D, whose weights are stored (in, out): ours are (out, in).
pub const CONV1D: [&str; 4] = ["attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"];
/// Where our metadata's `format` goes: Transformers wants `format` to say "pt".
pub const OURS: &str = "gpt_playground";
/// Where `config.json` keeps a task run's task.
pub const TASK: &str = "gpt_playground_task";
/// TransformerLens over either architecture (`python/gpt_playground_lens.py`).
const LENS_FILE: &str = "gpt_playground_lens.py";
const LENS: &str = include_str!("python/gpt_playground_lens.py");

impl Architecture {
    /// What `from_pretrained` needs beside the folder.
    fn trust(self) -> &'static str {
        match self {
            Architecture::Gpt2 | Architecture::Starcoder2 => "",
            Architecture::Ours => ", trust_remote_code=True",
        }
    }
}

/// The files of the export, each with its path under the folder given.
pub fn export(run: &Run) -> Result<Vec<(String, Vec<u8>)>> {
    let tokenizer = tokenizer_json(run.tokenizer())?;
    let c = run.model().config();
    let architecture = Architecture::of(c);
    let (mut config, weights) = match architecture {
        Architecture::Gpt2 => (gpt2_config(c), gpt2_weights(run)?),
        Architecture::Starcoder2 => {
            (hf_starcoder2::config(c), crate::checkpoint::serialize(&hf_starcoder2::weights(run), metadata(run))?)
        }
        Architecture::Ours => (hf_remote::config(c), hf_remote::weights(run, metadata(run))?),
    };
    if let Some(task) = run.task() {
        // Transformers keeps unknown config keys, so a run trained on there comes back with its task.
        config[TASK] = serde_json::to_value(task.config()).expect("plain data serialises");
    }
    let sampling = run.last_sample().cloned().unwrap_or_default();
    let generation = json!({
        "do_sample": sampling.temperature > 0.0,
        "temperature": if sampling.temperature > 0.0 { sampling.temperature } else { 1.0 },
        "top_k": sampling.top_k,
        // GPT-2 cannot look past its position table, so text stops at the block size.
        "max_length": c.block_size,
        // Our modelling code has no cache: each token reads the last block, as our sampler does.
        "use_cache": architecture != Architecture::Ours,
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
    let mut files = vec![
        ("config.json".into(), pretty(config)),
        ("generation_config.json".into(), pretty(generation)),
        ("model.safetensors".into(), weights),
        ("tokenizer.json".into(), pretty(tokenizer)),
        ("tokenizer_config.json".into(), pretty(tokenizer_config)),
        (LENS_FILE.into(), LENS.as_bytes().to_vec()),
    ];
    if architecture == Architecture::Ours {
        files.push((hf_remote::MODELING_FILE.into(), hf_remote::MODELING.as_bytes().to_vec()));
    }
    let mut readme = readme(run.step_count(), architecture);
    if let Some(task) = run.task() {
        let (problems, scoring) = hf_task::held_out(run, task, architecture.trust())?;
        files.push((hf_task::PROBLEMS_FILE.into(), problems));
        readme += &scoring;
    }
    files.push(("README.md".into(), readme.into_bytes()));
    Ok(files)
}

fn gpt2_config(c: &GPTConfig) -> serde_json::Value {
    json!({
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
    })
}

/// What the export cannot hold: only a byte-pair vocabulary with two tokens of the same bytes.
pub(super) fn check(run: &Run) -> Result<()> {
    tokenizer_json(run.tokenizer()).map(|_| ())
}

/// `model.safetensors`: every GPT-2 tensor, Conv1D weights transposed, missing biases as zeros.
fn gpt2_weights(run: &Run) -> Result<Vec<u8>> {
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
            None => zero_bias(params, &name),
        };
        tensors.push((name, shape, bytes));
    }
    crate::checkpoint::serialize(&tensors, metadata(run))
}

/// The run's own metadata for `model.safetensors`, under [`OURS`]: Transformers wants `format`
/// to say "pt".
fn metadata(run: &Run) -> HashMap<String, String> {
    let mut metadata = crate::checkpoint::metadata(&run.snapshot());
    let ours = metadata.insert("format".into(), "pt".into()).expect("a checkpoint names its format");
    metadata.insert(OURS.into(), ours);
    metadata
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

fn readme(step: usize, architecture: Architecture) -> String {
    let what = match architecture {
        Architecture::Gpt2 => "A GPT-2 model",
        Architecture::Starcoder2 => {
            "A Starcoder2 model (Transformers' own, which holds rotary positions exactly; its `q_proj`, \
             `k_proj` and `v_proj` are the rows of the run's `c_attn`)"
        }
        Architecture::Ours => {
            "nanoGPT's model with the run's settings, in `modeling_gpt_playground.py` (Transformers runs it \
             with `trust_remote_code=True`; read it first, as any model's code)"
        }
    };
    let trust = architecture.trust();
    format!(
        "# A gpt-playground run for Hugging Face Transformers, at step {step}\n\n\
         {what}, with the run's own tokenizer. In Python, with `transformers` installed:\n\n\
         ```python\n\
         from transformers import AutoModelForCausalLM, AutoTokenizer\n\
         model = AutoModelForCausalLM.from_pretrained(\"this-folder\"{trust})\n\
         tokenizer = AutoTokenizer.from_pretrained(\"this-folder\"{trust})\n\
         ids = tokenizer(\"\\n\", return_tensors=\"pt\").input_ids\n\
         print(tokenizer.decode(model.generate(ids, max_new_tokens=200)[0]))\n\
         ```\n\n\
         `model.push_to_hub(...)` and `tokenizer.push_to_hub(...)` put it on the Hub, and any trainer \
         built on Transformers trains it further.\n\n\
         TransformerLens 4 opens it too (`pip install transformer-lens`), its attention patterns the \
         playground's:\n\n\
         ```python\n\
         import sys; sys.path.insert(0, \"this-folder\")\n\
         import gpt_playground_lens\n\
         model = gpt_playground_lens.bridge(\"this-folder\")\n\
         logits, cache = model.run_with_cache(ids)\n\
         print(cache[\"blocks.0.attn.hook_pattern\"][0, 0])  # layer 1, head 1\n\
         ```\n\n\
         With TransformerLens 3 (the one `pip install sae-lens` brings), it opens as its \
         HookedTransformer, or SAELens's HookedSAETransformer, to run an autoencoder `gpt features --out` \
         wrote:\n\n\
         ```python\n\
         from sae_lens import SAE, HookedSAETransformer\n\
         model = gpt_playground_lens.hooked(\"this-folder\", HookedSAETransformer)\n\
         logits, cache = model.run_with_cache_with_saes(ids, saes=[SAE.load_from_disk(\"sae\")])\n\
         ```\n"
    )
}
