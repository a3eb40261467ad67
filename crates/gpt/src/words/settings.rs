//! What is wrong with a setting: each message names the setting, so it reads alone too.

super::message::messages! { "settings";
    /// A count field (a task's) outside its range.
    count_range(label, min, max, value) =
        "{label} must be a whole number from {min} to {max}, not {value}";
    /// A number field that may equal its lower bound.
    number_from(label, above, below, value) =
        "{label} must be from {above} to below {below}, not {value}";
    number_between(label, above, below, value) =
        "{label} must be between {above} and {below}, not {value}";
    choice(label, options, value) = "{label} must be one of {options}, not {value}";
    unknown_optimizer(name, options) = "unknown optimizer {name}; choose one of {options}";

    text_empty() = "the text is empty: paste or load some text to train on";
    text_too_short(part, len, block_size, need, enough) =
        "the text is too short: its {part, select, training {training} other {validation}} part has \
         {len, plural, one {# token} other {# tokens}}, but block size {block_size} needs at least {need} (the last \
         10% is kept for validation). Use more text (about {enough, plural, one {# token} other {# tokens}}) or a \
         smaller block size.";
    bpe_vocab_size(min, max, value) =
        "a byte-pair vocabulary must have {min} to {max, plural, one {# token} other {# tokens}}, not {value}";

    too_many_params(params, allowed) =
        "this model would have {params, plural, one {# parameter} other {# parameters}}, more than the {allowed} \
         allowed here; make it smaller";
    too_much_memory(batch_size, mib, allowed) =
        "training this model with batch size {batch_size} needs about {mib} MiB, more than the {allowed} MiB \
         allowed here; lower the batch size, block size or model size";
    at_least_one(name) = "{name} must be at least 1";
    heads_divide(n_embd, n_head) =
        "n_embd ({n_embd}) must be divisible by n_head ({n_head}): each head gets n_embd / n_head channels";
    rope_even(width) =
        "RoPE turns pairs of channels, so each head needs an even number of them: n_embd / n_head is {width}";
    dropout(value) = "dropout must be in [0, 1), not {value}";
    unbuildable() = "this model would have too many parameters to build; make it smaller";

    batch_size(max, value) = "batch_size must be between 1 and {max}, not {value}";
    max_iters(max, value) = "max_iters must be between 1 and {max}, not {value}";
    learning_rate(value) = "learning_rate must be a positive number below 10, not {value}";
    min_lr(value) = "min_lr must be a number from 0 to below 10, not {value}";
    min_lr_above(min_lr, learning_rate) = "min_lr ({min_lr}) must not exceed learning_rate ({learning_rate})";
    warmup(warmup_iters, max_iters) = "warmup_iters ({warmup_iters}) must not exceed max_iters ({max_iters})";
    decay_iters(decay, warmup_iters) =
        "lr_decay_iters ({decay}) must be at least warmup_iters ({warmup_iters}) and 1";
    weight_decay(limit, value) =
        "weight_decay must be 0 or more, and below 1 / learning_rate ({limit}), not {value}";
    beta(name, value) = "{name} must be in [0, 1), not {value}";
    grad_clip(value) = "grad_clip must be 0 (off) or positive, not {value}";
    eval_interval() = "eval_interval must be at least 1 (or left out: about 20 evaluations a run)";
    eval_iters(max, value) = "eval_iters must be between 1 and {max}, not {value}";
    muon_decay(product) =
        "Muon learning rate × weight decay must stay below 1 (each step shrinks the matrices by it), not {product}";

    unknown_built(name, names) = "no model is built by hand under the name {name}; there are: {names}";
    built_fixed(name) =
        "the model {name} is built by hand for its own shape and task, so they cannot change: choose its preset \
         again, or a trained preset to change them";
    needs_new_model(name) =
        "changing {name} needs a new model, which starts training over; this one keeps its weights";
    steps_done(max_iters, steps) =
        "max_iters ({max_iters}) cannot be fewer than the {steps, plural, one {# step} other {# steps}} already done";

    temperature(value) = "temperature must be between 0 (greedy) and 100, not {value}";
    max_new_tokens(max, value) = "max_new_tokens must be at most {max}, not {value}";

    one_letter() =
        "at length 1 a problem is a single letter, and no held-out letter ever appears in training, so no model \
         can answer one: choose a length of 2 or more";
    repeat_length(length, symbols) =
        "a repeat uses each letter once, so its sequence length ({length}) must not exceed the symbols ({symbols})";
    recall_pairs(pairs, keys) =
        "each pair has its own key, so the pairs ({pairs}) must not exceed the keys ({keys})";
    recall_queries(queries, pairs) =
        "each key is asked for once, so the queries ({queries}) must not exceed the pairs ({pairs})";
    train_fraction(value) =
        "Train fraction must be between 0 and 1 (not {value}): some problems train and the rest are held out";
    train_fraction_empty(count, fraction, none) =
        "this task has {count, plural, one {# problem} other {# problems}}, and a train fraction of {fraction} leaves \
         none {none, select, training {training: raise} other {held out: lower}} it, or change the task's settings to \
         make more problems";
    block_holds_problem(task, need, block_size) =
        "Block size must hold a whole problem of the {task} task: {need, plural, one {# token} other {# tokens}}, not \
         {block_size}";
}
