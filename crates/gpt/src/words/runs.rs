//! What a run cannot do as asked: its text, its tokens, sampling, training; and the one message
//! for what only a bug in the playground can cause.

super::message::messages! { "runs";
    task_takes_no_text(task) = "this run trains on the {task} task, which makes its own problems: it takes no text";
    cache_full(block) = "the cache is full: the model reads at most {block, plural, one {# token} other {# tokens}}";
    token_outside(token, vocab) = "token id {token} is outside the vocabulary of {vocab}";
    sequence_too_long(tokens, block) =
        "a sequence of {tokens, plural, one {# token} other {# tokens}} does not fit: the model reads 1 to {block} \
         (its block size)";
    target_outside(token, vocab) = "target {token} is outside the vocabulary of {vocab}";
    no_generation() = "no generation is running: start a sample first";
    not_a_task() = "this run trains on text, not on a task's problems";
    no_circuit_view() = "this run has no circuit view";
    no_text() = "there is no text to train on: attach a text first";
    text_under_window(tokens, need) =
        "the text has {tokens, plural, one {# token} other {# tokens}}, but one window needs {need} (block size + 1)";
    temperature(value) = "temperature must be positive for a distribution, not {value}";
    unknown_character(character, code) = "the character {character} (U+{code}) is not in the model's vocabulary";
    not_a_symbol(symbol, symbols) = "{symbol} is not one of this task's symbols ({symbols})";
    thread_stopped() = "a training thread stopped unexpectedly; the model keeps its last good step";
    bug(detail) = "{detail} (this is a bug in the playground: please report it)";
    diverged(step, what, lr, clipping) =
        "training diverged at step {step}: {what}. The model keeps its weights from before this step. Lower \
         the learning rate (it is {lr}){clipping, select, true {.} other { or turn gradient clipping on \
         (grad_clip 1.0).}}";
    loss_exploded(loss, uniform) = "the loss became {loss}, against {uniform} for a uniform guess";
    gradient_broke() = "the gradient became infinite or NaN";
}
