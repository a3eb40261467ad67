//! What a toy model (of superposition) cannot be or do as asked.

super::message::messages! { "toy";
    features(max, value) = "features: a toy model has 1 to {max, plural, one {# feature} other {# features}}, not {value}";
    hidden(features, value) =
        "hidden: the hidden dimensions must be 1 to the {features, plural, one {# feature} other {# features}} \
         they hold, not {value}";
    sparsity(value) = "sparsity: the chance a feature is absent must be from 0 to below 1, not {value}";
    importance_decay(value) =
        "importance decay: each feature's importance is this times the one before, from above 0 to 1, not {value}";
    last_importance(value) = "the extra feature's importance must be a number above 0, not {value}";
    no_dropout() = "a toy model trains without dropout";
    phase_shape(features, hidden) =
        "a phase diagram is drawn for 2 features in 1 dimension or 3 in 2 (Elhage's), not {features} in {hidden}";
    phase_size(max, value) = "a phase diagram's side must be 2 to {max, plural, one {# cell} other {# cells}}, not {value}";
    no_cell(cells, value) = "the phase diagram has {cells, plural, one {# cell} other {# cells}}, not a cell {value}";
    synthetic_size(max_features, max_dims, features, dims) =
        "synthetic activations are built from 1 to {max_features, plural, one {# feature} other {# features}} in 1 to \
         {max_dims, plural, one {# dimension} other {# dimensions}}, not {features} in {dims}";
    orthogonal(most, value) =
        "orthogonal: at most {most, plural, one {# feature} other {# features}} can be pushed as nearly orthogonal as \
         they can be, not {value}; ask for fewer, or for random directions";
    firing(value) = "a firing probability must be above 0 and at most 1, not {value}";
    zipf(exponent, min, max) =
        "Zipf's firing probabilities need an exponent above 0 and 0 < least < most ≤ 1, not exponent {exponent} from \
         {max} to {min}";
    magnitude(mean, std) = "a firing magnitude needs a mean above 0 and a spread of 0 or more, not {mean} and {std}";
    hidden_weights(want, value) =
        "the toy model's hidden layer needs {want, plural, one {# finite weight} other {# finite weights}} in W, not \
         {value}; train the toy model again";
    too_many_weights(max, value) =
        "{value, plural, one {# weight} other {# weights}} in one matrix is more than a toy job in the page may hold \
         ({max}); ask for fewer features, dimensions or latents";
    activations_file(problem) = "the activations file does not fit: {problem}";
    children(children, features) =
        "a hierarchy of {children} children per parent leaves no parent among {features, plural, one {# feature} \
         other {# features}}";
    correlation(max, rank, scale) =
        "a correlation needs 1 to {max, plural, one {# factor} other {# factors}} and a scale of 0 or more, not \
         {rank} and {scale}";
}
