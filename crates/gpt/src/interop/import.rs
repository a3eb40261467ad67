//! The way back: whatever files a person chooses (our checkpoint, nanoGPT's `ckpt.pt` with its
//! `meta.pkl`, a Transformers folder's files, or an export's zip) as one of our checkpoints.

use super::{hf_import, nanogpt_import, torch, zip};
use crate::error::{Error, Result};
use crate::words::files;
use std::borrow::Cow;

/// A run brought back: our checkpoint file, the text it trained on when the files hold it
/// (nanoGPT's `train.bin` and `val.bin`), and where it came from.
pub struct Imported {
    pub checkpoint: Vec<u8>,
    pub text: Option<String>,
    pub from: &'static str,
}

/// The run in `files` (name, bytes). A zip that is not a `torch.save` archive is opened (stored
/// or deflated) and its files taken in its place; when it holds both exports, nanoGPT's wins, as
/// it keeps the optimizer's state and the text.
pub fn import(files: &[(String, &[u8])]) -> Result<Imported> {
    let mut unpacked: Vec<(String, Cow<[u8]>)> = Vec::new();
    for (name, bytes) in files {
        let zipped = bytes.starts_with(b"PK\x03\x04").then(|| zip::unpack(bytes)).transpose()?;
        match zipped {
            Some(inner) if !torch::is_archive(&inner) => unpacked.extend(inner),
            _ => unpacked.push((name.clone(), Cow::Borrowed(bytes))),
        }
    }
    let all: Vec<(String, &[u8])> = unpacked.iter().map(|(name, bytes)| (name.clone(), &**bytes)).collect();
    let base = |name: &str| name.rsplit('/').next().unwrap_or(name).to_string();
    let named = |want: &str| -> Result<Option<&[u8]>> {
        let mut found = all.iter().filter(|(n, _)| base(n) == want);
        match (found.next(), found.next()) {
            (Some((_, bytes)), None) => Ok(Some(bytes)),
            (None, _) => Ok(None),
            (Some(_), Some(_)) => Err(Error::Format(files::several(want))),
        }
    };
    let is_ckpt = |name: &str, bytes: &[u8]| name.ends_with(".pt") || name.ends_with(".pth") || is_torch(bytes);
    let ckpts: Vec<&[u8]> = all.iter().filter(|(name, bytes)| is_ckpt(name, bytes)).map(|(_, b)| *b).collect();
    if ckpts.len() > 1 {
        return Err(Error::Format(files::several_checkpoints()));
    }
    if let Some(ckpt) = ckpts.first() {
        let meta = named("meta.pkl")?;
        let checkpoint = nanogpt_import::import(ckpt, meta)?;
        let bins = [named("train.bin")?, named("val.bin")?];
        let text = match (meta, bins) {
            (Some(meta), [Some(train), Some(val)]) => Some(nanogpt_import::text(meta, &[train, val])?),
            _ => None,
        };
        return Ok(Imported { checkpoint, text, from: "nanoGPT" });
    }
    let (config, tokenizer) = (named("config.json")?, named("tokenizer.json")?);
    // A safetensors file by its name, or, when the name has no extension, by its start (a header
    // length, then JSON).
    let is_model = |name: &str, bytes: &[u8]| {
        name.ends_with(".safetensors") || (!base(name).contains('.') && bytes.get(8) == Some(&b'{'))
    };
    let models: Vec<&[u8]> = all.iter().filter(|(name, b)| is_model(name, b)).map(|(_, b)| *b).collect();
    match models.as_slice() {
        [bytes] if is_transformers(bytes) || config.is_some() => {
            let checkpoint = hf_import::import(bytes, config, tokenizer)?;
            Ok(Imported { checkpoint, text: None, from: "Transformers" })
        }
        // Ours, or unreadable: the checkpoint's loader says what is wrong with it.
        [bytes] => Ok(Imported { checkpoint: bytes.to_vec(), text: None, from: "gpt-playground" }),
        [] => Err(Error::Format(files::no_model())),
        _ => Err(Error::Format(files::several_models())),
    }
}

/// Whether `bytes` is a zip holding `torch.save`'s `data.pkl`.
fn is_torch(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") && zip::read(bytes).is_ok_and(|files| torch::is_archive(&files))
}

/// Whether `bytes` is a safetensors file PyTorch wrote (its header says format "pt"), as
/// Transformers' `model.safetensors` is.
fn is_transformers(bytes: &[u8]) -> bool {
    safetensors::SafeTensors::read_metadata(bytes)
        .is_ok_and(|(_, header)| header.metadata().as_ref().and_then(|m| m.get("format")).is_some_and(|f| f == "pt"))
}
