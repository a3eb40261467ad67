//! The walk's words: each stage's title and what it does, and the figures worth reading off. The
//! lines of code and the shapes beside them stay as nanoGPT writes them.

super::message::messages! { "walk";
    /// Where a stage is: `at position 3 ('e')`.
    at(position, token) = "at position {position} ({token})";
    block(number) = "block {number}";
    head(number, layer) = "head {number} of layer {layer}";

    tokens_title() = "Tokens to ids";
    tokens_what(tokens, vocab) =
        "The text is split into {tokens, plural, one {# token} other {# tokens}}, each looked up by its id in a \
         vocabulary of {vocab}.";
    id_row() = "id";
    token_embedding_title(at) = "Token embedding {at}";
    token_embedding_what(id) = "Row {id} of the token embedding table: the vector this token starts as.";
    no_position_title(at) = "No position table {at}";
    no_position_what() =
        "With rotary positions (RoPE) nothing is added for the position: each head turns its queries and keys by \
         their positions instead, so attention sees how far apart two tokens are.";
    position_title(at) = "Position embedding {at}";
    position_what(position) = "Row {position} of the learned position table, one per place in the block.";
    sum_title(at) = "Token plus position {at}";
    sum_what() = "The two added: the residual stream entering the first block.";
    closed_block_title(number, at) = "Block {number} {at}";
    closed_block_what(number) =
        "Three rows: what block {number}'s attention adds to the residual stream here, what its MLP adds, and the \
         stream after (choose layer {number} to open it).";
    attention_adds() = "attention adds";
    mlp_adds() = "MLP adds";
    stream_after() = "stream after";
    after_last(at) = "after the last block, {at}";
    last_output() = "the last block's output";
    logits_title(at) = "Logits {at}";
    logits_what(tied, channels, vocab) =
        "One score per token of the vocabulary: how much the model favours each as the next. The \
         {tied, select, true {token embedding's weights (tied: the same \
         table that embedded the tokens)} other {output layer's weights}} map the \
         {channels, plural, one {# channel} other {# channels}} to {vocab} scores.";
    largest_logit() = "largest logit";

    normalised_title(place) = "Normalised {place}";
    normalised_what(input, rms) =
        "Each row of {input}, {rms, select, true {divided by its root mean square (RMSNorm)} \
         other {shifted to mean 0 and divided by its standard deviation (LayerNorm)}}, so every position enters \
         at the same scale.";
    stream_mean() = "mean of the stream in";
    stream_rms() = "root mean square in";
    stream_spread() = "spread of the stream in";
    gain_title(place) = "Scaled by the norm's gain {place}";
    gain_what(bias) =
        "The normalised row {bias, select, true {times its gain, plus its bias} other {times its gain}}, channel \
         by channel: what the next layer reads.";
    before_attention(block, at) = "before attention, {block}, {at}";
    block_input() = "the stream entering the block";
    before_mlp(block, at) = "before the MLP, {block}, {at}";
    after_attention() = "the stream after attention";

    qkv_title(part, head) = "{part, select, q {Queries} k {Keys} other {Values}}, {head}";
    qkv_what(part, width, columns) =
        "The head's {part, select, q {queries: what each position looks for} k {keys: \
         what each position offers to be found by} other {values: what each position passes on when it is looked at}}, \
         at every position. From q, k, v = self.c_attn(x).split(self.n_embd, dim=2): {width} of the \
         {columns, plural, one {# column} other {# columns}}.";
    qk_norm_title(part, head) = "{part, select, q {Q} other {K}} after QK-norm, {head}";
    qk_norm_what(inside) =
        "Each query and key divided by its root mean square, so their dot products stay in range.\
         {inside, select, true { TransformerLens has no hook here: the exported model (our modelling code) does \
         this inside its attention.} other {}}";
    rope_title(part, head) = "{part, select, q {Q} other {K}} turned by position (RoPE), {head}";
    rope_what(inside) =
        "Each pair of channels turned by an angle that grows with the position: a query and a key then meet at an \
         angle set by how far apart they are.{inside, select, true { TransformerLens has no hook here: the \
         exported model (our modelling code) does this inside its attention.} other {}}";
    scores_title(width, head) = "Scores q·k / √{width}, {head}";
    scores_what(inside) =
        "How well each query matches each key, divided by the square root of the head size. Cells above the \
         diagonal are masked to −∞ (att.masked_fill(... float('-inf')), as TransformerLens holds them): a position \
         never sees a later one, since the softmax turns −∞ into a weight of 0.{inside, select, true { \
         TransformerLens has no hook here: the exported model (our modelling code) does this inside its \
         attention. (Its hook_attn_scores holds the softmax's output.)} other {}}";
    pattern_title(head) = "Softmax: where {head} looks";
    pattern_what(position) =
        "Each row turned into weights that add up to 1 (row {position} is the position followed). This is the \
         attention map the heads view draws.";
    weighted_title(head, at) = "Weighted sum of values, {head}, {at}";
    weighted_what(position) = "The values of every position, each times its weight in row {position}, added up.";
    heads_title(block, at) = "Every head's output side by side, {block}, {at}";
    heads_what(heads, width) =
        "The {heads, plural, one {# head} other {# heads}}' sums, head after head, \
         {width, plural, one {# channel} other {# channels}} each.";
    projection_title(block, at) = "Output projection, {block}, {at}";
    projection_what() = "A linear map mixing the heads' outputs into what attention adds to the stream.";
    attention_add_title(block, at) = "Residual add after attention, {block}, {at}";
    attention_add_what() = "What attention computed, added to the stream it read.";
    up_title(block, at) = "MLP up-projection, {block}, {at}";
    up_what(neurons) = "A linear map to {neurons, plural, one {# neuron} other {# neurons}}, four times the channels.";
    activation_title(block, at) = "Activation: which neurons fire, {block}, {at}";
    activation_what(kind) =
        "{kind, select, relu {ReLU keeps a neuron's input where it is positive and zeroes it elsewhere} \
         gelu_tanh {GELU (its tanh form) lets positive inputs through and squashes negative ones towards 0} \
         other {GELU lets positive inputs through and squashes negative ones towards 0}}: the neurons that fire \
         here.";
    firing() = "share of neurons firing";
    down_title(block, at) = "MLP down-projection, {block}, {at}";
    down_what() = "A linear map back to the channels: what the MLP adds to the stream.";
    mlp_add_title(block, at) = "Residual add after the MLP, {block}, {at}";
    mlp_add_what(block) = "The stream leaving {block}.";

    norm() = "norm";
    clipped_norm() = "norm once clipped, as the step used it";
    logits_grad_title(at) = "dL/dlogits {at}: p − onehot";
    logits_grad_what(target, loss, prob) =
        "The loss is −log p({target}) = {loss}, p = {prob} at temperature 1 (the draw's temperature does not enter \
         it). Its gradient at the logits is each token's probability, less 1 at the target: the step pushes the \
         target's score up and every other down, each by its probability.";
    output_layer_title(at) = "Back through the output layer {at}";
    output_layer_what() =
        "The gradient at the final norm's output: the output layer's weights carry it back to the channels.";
    leaving_title(number, at) = "Into the stream leaving block {number} {at}";
    leaving_what() =
        "A residual add passes the gradient through unchanged to both its inputs: the MLP and the stream before.";
    down_grad_title(number, at) = "Back through the MLP's down-projection, block {number} {at}";
    down_grad_what() = "The gradient at each neuron's output.";
    activation_grad_title(number, at) = "Back through the activation, block {number} {at}";
    activation_grad_what() = "Only neurons that fired pass it on (fully for ReLU; GELU scales it by its slope).";
    middle_title(number, at) = "Into the stream after attention, block {number} {at}";
    middle_what() = "What the MLP sends back through its norm, added to what comes straight down the stream.";
    head_output_title(number, layer) = "Into head {number} of layer {layer}'s output, every position";
    head_output_what() = "The output projection hands each head its part of the gradient.";
    qkv_grad_title(part) =
        "Into the head's {part, select, q {queries} k {keys} other {values}}, every position";
    qkv_grad_what(part, changes) =
        "Back through {part, select, v {the weighted sum} other {{changes, select, \
         rope {the weighted sum, the softmax, the scores and RoPE's rotation (turned back by the same angle)} \
         qk_norm {the weighted sum, the softmax, the scores and QK-norm} \
         both {the weighted sum, the softmax, the scores, RoPE's rotation (turned back by the same angle) and \
         QK-norm} \
         other {the weighted sum, the softmax and the scores}}}}: {part, select, \
         q {only the position followed asks, so only its query moves} \
         k {each earlier key it attended to moves, more where it attended more} \
         other {each earlier value moves by its weight in the position's row}}.";
    entering_title(number, at) = "Into the stream entering block {number} {at}";
    entering_what() = "Through the residual path and back through the norm and c_attn, added up.";
    embeddings_title() = "Into the token embeddings, every position";
    embeddings_what() =
        "How each position's embedding would change: the earlier ones too, through attention. Each row adds into \
         its token's row of the embedding table.";
}
