//! What the walk's stages are called elsewhere, shared by its forward and backward passes:
//! TransformerLens's hooks where the export has them, and the lines of code beside each stage.

use crate::config::Architecture;
use crate::ops::Activation;
use crate::GPTConfig;

/// TransformerLens's hook for a head's queries, keys or values (`part`) in layer `l`, as its bridge
/// names them on the run's export: `hook_q` (one head's columns of it), or on our modelling code,
/// whose attention keeps its fused projection, `qkv.hook_out`.
pub(super) fn qkv_hook(cfg: &GPTConfig, l: usize, part: &str) -> String {
    match Architecture::of(cfg) {
        Architecture::Ours => format!("blocks.{l}.attn.qkv.hook_out"),
        Architecture::Gpt2 | Architecture::Starcoder2 => format!("blocks.{l}.attn.hook_{part}"),
    }
}

/// The playground's PyTorch model, whose lines the walk shows where nanoGPT's `model.py` has none.
pub(super) const OUR_MODEL: &str = "python/nanogpt.py";
/// QK-norm's line there.
pub(super) const QK_NORM_LINE: &str = "q, k = (F.rms_norm(t, (t.size(-1),), eps=1e-5) for t in (q, k))";
/// RoPE's line there.
pub(super) const ROPE_LINE: &str = "q, k = rotary(q), rotary(k)";

/// The MLP's activation as its line of code, and its name in the walk's words.
pub(super) fn activation_line(kind: Activation) -> (&'static str, &'static str) {
    match kind {
        Activation::Relu => ("x = self.act(x) # nn.ReLU(), python/nanogpt.py", "relu"),
        Activation::GeluTanh => ("x = self.act(x) # nn.GELU(approximate='tanh'), python/nanogpt.py", "gelu_tanh"),
        Activation::Gelu => ("x = self.gelu(x)", "gelu"),
    }
}
