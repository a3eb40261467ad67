//! Why a view cannot show what it is asked: the text or prompts it needs, a head, layer or
//! position the model has not, an attribution graph's limits.

super::message::messages! { "views";
    held_out_short(tokens) =
        "the held-out text is shorter than one block ({tokens, plural, one {# token} other {# tokens}})";
    attention_text() = "type some text to see its attention";
    no_pairs() = "a circuit needs at least one pair of prompts";
    uncorruptible() = "no held-out problem could be corrupted so that its answer changes";
    no_swap(task) =
        "a swap moves the earlier copy of a repeated symbol, and the {task} task repeats none: use the \
         one-symbol change";
    too_small_for_pairs() = "this model is too small to propose pairs: type a clean and a corrupted prompt";
    no_difference(clean, corrupted) =
        "the metric is {clean} on the clean prompts and {corrupted} on the corrupted ones: with no difference \
         there is nothing for a circuit to keep. Train further, or choose another corruption";
    ig_steps() = "integrated gradients need at least one step";
    no_node(node, features) =
        "node {node} is not one of the graph's {features, plural, one {# feature} other {# features}}";
    scale_factor(factor) = "a feature's activation can be scaled by a number, not {factor}";
    no_transcoders_to_trace() =
        "this run has no transcoders: train a transcoder for every MLP first, then trace a prompt";
    trace_prompt() = "type a prompt to trace: the graph explains its next token";
    prompt_too_long(tokens, block) =
        "the prompt is {tokens, plural, one {# token} other {# tokens}}, longer than the model's block of {block}: \
         shorten it to its last {block}";
    graph_too_big(mb, features, tokens, allowed) =
        "this prompt's graph would take {mb} MB ({features, plural, one {# active feature} other {# active features}} \
         over {tokens, plural, one {# token} other {# tokens}}), more than the {allowed} MB a graph may: trace a \
         shorter prompt, or train transcoders with fewer features per token (k)";
    no_head(head, layer, layers, heads) =
        "there is no head {head} of layer {layer}: the model has {layers, plural, one {# layer} other {# layers}} of \
         {heads, plural, one {# head} other {# heads}}";
    attends_back(tokens, query, key) =
        "a head attends from a position to itself or an earlier one, in the prompt's {tokens}: not from \
         {query} to {key}";
    no_transcoder_layer(layer, layers) = "there is no layer {layer} of transcoders: the model has {layers}";
    threshold(name, share) =
        "the {name, select, node {node} other {edge}} threshold is a share from 0 to 1, not {share}";
    feature_silent(feature, layer, position) =
        "feature {feature} of layer {layer} does not fire at position {position} of this prompt: the graph has \
         no such node";
    graph_prompt() = "an attribution graph needs a prompt of at least one token";
    probe_text() = "type a probe text: with no training text there is no held-out one";
    no_view(name) = "there is no view called {name}";
    no_corruption() = "no one-symbol change to this prompt changes its answer: type a corrupted prompt";
    same_answers(clean, corrupted) = "{clean} and {corrupted} need prompts of the same length whose answers differ";
    lengths_differ(clean, corrupted) =
        "the clean prompt has {clean, plural, one {# token} other {# tokens}} and the corrupted one {corrupted}: \
         patching needs the same number";
    same_answer(answer) = "both prompts lead to {answer}: change the corrupted one so that the model's answer changes";
    type_prompts() = "type a clean and a corrupted prompt: this model is too small to propose them";
    both_or_neither() = "type both prompts, or neither to have them proposed";
    position_past(position, last) = "position {position} is past the sequence's last ({last}): positions count from 0";
    not_in_model(layer, head, layers, heads) =
        "layer {layer} head {head} is not in the model ({layers, plural, one {# layer} other {# layers}} of \
         {heads, plural, one {# head} other {# heads}}, counted from 0)";
    target_one_token(target, tokens) = "the target must be one token; {target} is {tokens}";
    follow_held_out() = "type a text to follow: the run has no held-out text";
    follow_text() = "type a text to follow";
    not_a_part(part, layers, heads, positions) =
        "{part} is not a part of this model ({layers, plural, one {# layer} other {# layers}} of \
         {heads, plural, one {# head} other {# heads}}, {positions, plural, one {# position} other {# positions}})";
    edit_width(part, given, want) =
        "the new value of {part} has {given, plural, one {# number} other {# numbers}}, not {want}";
    hook_not_in_model(hook, layers, last) =
        "{hook} is not in this model: it has {layers, plural, one {# layer} other {# layers}}, blocks.0 to \
         blocks.{last}";
    embeddings_part() = "embeddings";
    attention_bias(layer) = "L{layer} attention bias";
    final_norm_bias() = "final norm bias";
    exact_too_costly(edges, billions, budget) =
        "Patching each of the {edges, plural, one {# edge} other {# edges}} exactly would take about {billions} \
         billion multiply-adds, past the {budget} this page spends on it: EAP-IG's scores stand in, and the circuits \
         come from its ranking";
    mlp_input_edit(layer) =
        "what an MLP reads is not a term of the stream: edits are made where the MLP writes \
         (blocks.{layer}.hook_mlp_out), as a transcoder's output replaces it";
}
