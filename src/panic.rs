//! The last line of defence: the bindings validate everything, but if a panic happens anyway the
//! wasm instance cannot continue, so say clearly what happened before it traps.

use std::sync::Once;

/// Reports panics on the console as `gpt-playground crashed: …`; the caller sees the trap as a
/// `RuntimeError` and must start a new engine.
pub fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = format!(
                "gpt-playground crashed: {info}. This is a bug in gpt-playground; the engine has stopped and must be reloaded."
            );
            web_sys::console::error_1(&message.into());
        }));
    });
}
