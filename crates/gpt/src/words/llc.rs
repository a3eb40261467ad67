//! What an estimate of the learning coefficient cannot be asked.

super::message::messages! { "llc";
    step(value) = "SGLD's step ε must be a number above 0, not {value}";
    localisation(value) = "the localisation γ must be 0 or more, not {value}";
    temperature(value) = "the inverse temperature nβ must be a number above 0, not {value}";
    draws(chains, draws) = "an estimate needs at least one chain of at least one draw, not {chains} × {draws}";
    misfit(given, want) =
        "{given, plural, one {# weight was} other {# weights were}} given for a model of {want, plural, one {# weight} \
         other {# weights}}";
    no_batches() = "there is no data to draw batches from";
    no_part(layers, heads) =
        "the model has {layers, plural, one {# layer} other {# layers}} of {heads, plural, one {# head} other {# heads}}: \
         a part is one of those heads, one of those MLPs, the embeddings or the whole model";
}
