//! Why a file cannot be read or written: a checkpoint, or another tool's files being imported or
//! exported. Where a format's own details explain it (a pickle's opcode, a zip's entry), they stay
//! as the format names them, inside words the reader's language gives.

super::message::messages! { "files";
    sae_optimizer(name) = "the checkpoint's autoencoder trains by an unknown optimizer {name}";
    invalid_key(key, reason) = "the checkpoint's `{key}` is invalid: {reason}";
    unwritable(reason) = "could not write the safetensors file: {reason}";
    hf_config(reason) = "this Transformers model's config.json has a setting the playground cannot read: {reason}";
    transformers(why) = "this Transformers model {why}";
    starcoder2_lacks(why) = "this Starcoder2 model {why}, which the playground's model has not";
    foreign_tokenizer() =
        "this tokenizer.json is not one the playground writes (characters, its own byte pairs, or a task's \
         symbols), so the model's tokens would not mean the same here";
    ambiguous_bytes(id, bytes) =
        "this byte-pair vocabulary has two tokens for the bytes of token {id} ({bytes}), which a Transformers \
         tokenizer cannot tell apart; train with another vocabulary size to export for Transformers";
    several(name) = "these files hold more than one {name}: choose one run's";
    several_checkpoints() = "these files hold more than one PyTorch checkpoint: choose one run's";
    no_model() =
        "none of these files is a model: choose a gpt-playground checkpoint (.safetensors), nanoGPT's ckpt.pt \
         with its meta.pkl, a Transformers folder's config.json, model.safetensors and tokenizer.json, or an \
         export's zip";
    several_models() =
        "these files hold more than one model: choose a gpt-playground checkpoint (.safetensors), nanoGPT's ckpt.pt \
         with its meta.pkl, a Transformers folder's config.json, model.safetensors and tokenizer.json, or an \
         export's zip";
    export_needs_text() = "this run has no text yet: give it the text it trains on";
    nanogpt(why) = "this nanoGPT checkpoint {why}";
    meta(why) = "this meta.pkl {why}";
    token_beyond_meta(id, tokens) = "train.bin or val.bin holds token {id}, beyond meta.pkl's {tokens}";
    no_topk_transcoder() =
        "SAELens has no TopK transcoder (its transcoders are ReLU, JumpReLU and skip ones): train the \
         transcoder with an L1 penalty (ReLU) to save it in SAELens's format";
    autoencoder(reason) = "this autoencoder cannot be read: {reason}";
    no_data_pkl() = "this zip is not a torch.save checkpoint: it has no data.pkl";
    torch_tensor(name, why) = "the checkpoint's {name} {why}";
    pickle(why) = "the pickle {why}";
    not_float32(dtype) =
        "a tensor is stored as {dtype}; only float32 (torch.FloatStorage) is read: save the model as float32";
    zip(why) = "this zip {why}";
    no_optimizer_tensor(key) = "the checkpoint has no tensor optimizer.{key}";
    no_parameter(name) = "the model has no parameter {name}";
    parameter_shape(name, shape, want) = "{name} has shape {shape} but the model expects {want}";
    invalid_task(reason) = "the checkpoint's `task` is invalid: {reason}";
    edited_vocab() = "the checkpoint's `vocab` is not the symbols of its `task`: the file was edited";
    transcoders_misfit(layers, channels, features) =
        "the transcoders do not fit this model: {layers, plural, one {# layer} other {# layers}} of \
         {channels, plural, one {# channel} other {# channels}}, \
         {features, plural, one {# feature} other {# features}} each";
    sae_tensors(count, want) =
        "the autoencoder has {count, plural, one {# tensor} other {# tensors}}, not the {want} of its kind";
    sae_tensor(name, shape, channels, features) =
        "the autoencoder's {name} is missing or not of shape {shape} ({channels, plural, one {# channel} other {# \
         channels}}, {features, plural, one {# feature} other {# features}})";
    merge_order(index, a, b) = "merge {index} ({a}, {b}) uses a token that does not exist yet";
    repeated_characters() = "a character vocabulary must list distinct characters";
    invalid_vocab(reason) = "the checkpoint's `vocab` is invalid: {reason}";
    task_vocab() = "a task's vocabulary must list distinct, non-empty tokens";
    not_safetensors(reason) = "this file is not a readable checkpoint (safetensors): {reason}";
    header(reason) = "the checkpoint's header is unreadable: {reason}";
    no_config() = "the checkpoint has no `config` in its metadata, so its architecture is unknown";
    no_vocab() = "the checkpoint has no `vocab` in its metadata, so its tokens are unknown";
    invalid_config(reason) = "the checkpoint's config is invalid: {reason}";
    unknown_optimizer(name) = "the checkpoint's optimizer {name} is unknown";
    unused_tensor(name) = "the checkpoint has a tensor {name} that this model does not use";
    no_tensor(name) = "the checkpoint has no tensor {name}";
    tensor_type(name, dtype) = "{name} is stored as {dtype}; save the weights as float32";
    tensor_shape(name, shape, want) = "{name} has shape {shape}, but the config needs {want}";
    place(key, reason) = "the checkpoint's {key}: {reason}";
    vocab_mismatch(config, listed) =
        "the config says vocab_size {config} but the vocab lists {listed, plural, one {# token} other {# tokens}}";
    cut_short(params, bytes) =
        "the config describes {params, plural, one {# parameter} other {# parameters}}, more than this {bytes}-byte \
         file holds: it is cut short or its header was edited";
    not_for(tool, reason) = "not for {tool}: {reason}";
    nothing_exports(refusals) =
        "{refusals}; Save checkpoint keeps every setting, its weights under nanoGPT's names for PyTorch";
    nanogpt_refuses(setting) =
        "{setting, select, tokenizer {nanoGPT's sample.py decodes characters (with meta.pkl) or GPT-2's own \
         byte pairs, not this run's (the Transformers export keeps them): set Tokenizer to Characters} norm \
         {nanoGPT's model.py has LayerNorm, not RMSNorm: set Norm to LayerNorm} activation {nanoGPT's model.py \
         has exact GELU, not this run's activation: set Activation to GELU} tie {nanoGPT's model.py ties the \
         output layer to the token embedding: tick Tie weights} rope {nanoGPT's model.py has a learned \
         position table, not RoPE: untick RoPE} other {nanoGPT's model.py has no QK-norm: untick QK-norm}} and \
         train again to export for nanoGPT, or take the Transformers export, which holds every run as it is";
    nanogpt_task() =
        "this run trains on a task; nanoGPT trains on a text (data/NAME/train.bin); the Transformers export \
         holds it with its symbols and held-out problems, which holds every run as it is";
    nanogpt_vocab(tokens) =
        "nanoGPT's train.bin keeps each token in 2 bytes, which cannot hold this vocabulary of \
         {tokens, plural, one {# token} other {# tokens}}";
}
