//! The small models the graph's tests read: a stream holding only what the graph's nodes write.

use crate::config::GPTConfig;
use crate::model::GPT;
use crate::sae::{Architecture, SaeConfig, Transcoders};

/// A model whose stream is only what the graph's nodes write: no biases, no learned positions
/// (rotary ones only turn queries and keys), and transcoders with no output bias.
pub(super) fn unbiased() -> (GPT, Transcoders) {
    unbiased_with(false)
}

/// [`unbiased`], its transcoders with a skip connection (drawn at random) or not.
pub(super) fn unbiased_with(skip: bool) -> (GPT, Transcoders) {
    let config = GPTConfig {
        n_layer: 2,
        n_head: 2,
        n_embd: 16,
        block_size: 8,
        vocab_size: 11,
        bias: false,
        rope: true,
        ..Default::default()
    };
    let mut model = GPT::new(config, 3).unwrap();
    // Norm gains away from one, so that a frozen norm's weight shows.
    let mut rng = crate::rng::Rng::new(4);
    for (name, value) in model.params().names.clone().iter().zip(0..) {
        if name.contains("ln") {
            model.params_mut().values[value].iter_mut().for_each(|w| *w = 1.0 + 0.3 * rng.normal());
        }
    }
    let sae = SaeConfig {
        expansion: 2,
        architecture: Architecture::TopK { k: 5, aux_coefficient: 0.0 },
        skip,
        ..SaeConfig::transcoder(0)
    };
    let mut transcoders = Transcoders::new(sae, 2, 16, 5).unwrap();
    let count = sae.tensor_count();
    for layer in 0..2 {
        // Encoders strong enough that features fire.
        let w = &mut transcoders.params_mut().values[layer * count];
        w.iter_mut().for_each(|x| *x *= 10.0);
        if skip {
            // Writing about as much as the MLP (whose output here is about 0.01): the error nodes
            // stay small, and so does f32's rounding where they cancel.
            let w_skip = &mut transcoders.params_mut().values[layer * count + 4];
            w_skip.iter_mut().for_each(|x| *x = 0.003 * rng.normal());
        }
    }
    (model, transcoders)
}
