//! Runs in other tools' formats, both ways: nanoGPT's checkout (`ckpt.pt`, a `torch.save` archive,
//! and its data files) and Hugging Face Transformers' GPT-2 folder.

pub mod hf;
pub mod hf_import;
mod hf_remote;
mod hf_shared;
mod hf_starcoder2;
mod hf_task;
mod hf_tokenizer;
mod import;
pub mod nanogpt;
pub mod nanogpt_import;
pub mod pickle;
pub mod saelens;
pub mod torch;
mod unpickle;
pub mod zip;

pub use import::{import, Imported};

use crate::error::{Error, Result};
use crate::words;
use crate::Run;

/// The page's download: one zip holding `NAME-nanogpt/` (what goes into a nanoGPT checkout) and
/// `NAME-transformers/` (a folder `from_pretrained` loads), with a README. A format that cannot
/// hold the run is left out, the README saying why; only a run neither holds is refused.
pub fn bundle(run: &Run, name: &str) -> Result<Vec<u8>> {
    let name = nanogpt::folder_name(name);
    let exports = [
        ("nanoGPT", format!("{name}-nanogpt"), nanogpt::export(run, &name)),
        ("Transformers", format!("{name}-transformers"), hf::export(run)),
    ];
    let mut files = Vec::new();
    let mut readme = format!("# gpt-playground run `{name}` at step {}\n\n", run.step_count());
    let mut refusals = Vec::new();
    for (tool, folder, export) in exports {
        match export {
            Ok(export) => {
                readme += &format!("- `{folder}/`: for {tool}; its README.md has the commands.\n");
                files.extend(export.into_iter().map(|(path, bytes)| (format!("{folder}/{path}"), bytes)));
            }
            Err(e) => {
                readme += &format!("- Not for {tool}: {e}.\n");
                refusals.push(words::files::not_for(tool, e));
            }
        }
    }
    if files.is_empty() {
        // The weights alone still go to PyTorch: our checkpoint keeps nanoGPT's state_dict names.
        return Err(Error::Config(words::files::nothing_exports(refusals)));
    }
    files.insert(0, ("README.md".into(), readme.into_bytes()));
    Ok(zip::stored(&files.iter().map(|(path, bytes)| (path.clone(), bytes.as_slice())).collect::<Vec<_>>()))
}

/// Why each format that cannot hold `run` leaves it out (empty when both hold it).
pub fn left_out(run: &Run) -> Vec<String> {
    let refusal = |tool: &str, check: Result<()>| check.err().map(|e| format!("not for {tool}: {e}"));
    [refusal("nanoGPT", nanogpt::check(run)), refusal("Transformers", hf::check(run))].into_iter().flatten().collect()
}
