//! What an autoencoder or a set of transcoders cannot be or do as asked.

super::message::messages! { "dictionaries";
    transcoders_misfit(layers, channels, model_layers, model_channels) =
        "these transcoders are for {layers, plural, one {# layer} other {# layers}} of \
         {channels, plural, one {# channel} other {# channels}}, the model has {model_layers} of {model_channels}";
    steering(strength) = "the steering strength must be a number, not {strength}";
    features_text() = "type some text to see which features fire on it";
    no_feature(feature, features) = "there is no feature {feature}: the autoencoder has {features}";
    feature_order(order) = "features sort by density or importance, not {order}";
    no_autoencoder() = "no autoencoder has been started on this run";
    no_transcoders() = "no transcoders have been trained on this run: train them first (a transcoder per MLP)";
    transcoder_points(input, output) =
        "a transcoder reads what an MLP reads and writes what it writes (blocks.L.ln2.hook_normalized to \
         blocks.L.hook_mlp_out), not {input} to {output}";
    mlp_input(layer) =
        "an autoencoder reads the stream or an MLP's output; what block {layer}'s MLP reads is a transcoder's \
         input (with its output at blocks.{layer}.hook_mlp_out)";
    skip_needs_transcoder() =
        "skip: only a transcoder has a skip connection (an autoencoder reconstructs what it reads)";
    expansion(max, value) = "expansion: the features per channel must be 1 to {max}, not {value}";
    k(features, value) =
        "k: the features active per token must be 1 to the {features, plural, one {# feature} other {# features}}, not \
         {value}";
    aux_coefficient(value) = "aux_coefficient: the dead features' loss weight must be 0 or more, not {value}";
    l1_coefficient(value) = "l1_coefficient: the sparsity penalty must be 0 or more, not {value}";
    l0_coefficient(value) = "l0_coefficient: the penalty on each firing feature must be 0 or more, not {value}";
    bandwidth(value) = "bandwidth: the threshold's learning window must be more than 0, not {value}";
    levels(most, value) = "levels: a Matryoshka autoencoder's nested levels must be 2 to {most}, not {value}";
    autoencoder_only() =
        "BatchTopK, Matryoshka and JumpReLU train as autoencoders here: a transcoder is TopK or ReLU";
    dead_tokens(max, value) =
        "dead_tokens: a feature's window to fire in must be 1 to {max, plural, one {# token} other {# tokens}}, not \
         {value}";
    channels(reads, model) =
        "the autoencoder reads {reads, plural, one {# channel} other {# channels}}, the model has {model}";
    no_dropout() = "an autoencoder trains without dropout";
}
