//! What to watch for while each task trains, and what a setting does to its phenomenon under the
//! preset's recipe (measured: `docs/tasks.md`).

super::message::messages! { "tasks";
    addition_watch(digits) =
        "Each number is padded to {digits, plural, one {# digit} other {# digits}} and the sum is written ones digit \
         first (123+456=9750 is 579), as a model that writes left to right learns it fastest. Watch held-out accuracy \
         climb as the model learns the carries; in the attention grid, each answer digit looks back at the two digits \
         it adds.";
    addition_one_digit() =
        "1 digit makes only 100 problems, and the 90 that train are too few to find the rule in: held-out sums \
         stayed at 52-69% right after the preset's 3,000 steps (three seeds). 2 digits take about 200 steps.";

    brackets_watch() =
        "Round and square brackets, some still open, then >: the model closes them, innermost first. Watch the \
         attention grid: each closing bracket of the answer comes to look back at the opening bracket it closes, \
         skipping the pairs closed inside the prompt (the stack a parser keeps), as held-out accuracy climbs.";
    brackets_long(length) =
        "At {length, plural, one {# bracket} other {# brackets}} the preset's 2,000 steps are too few: 16 brackets \
         take about 1,950 steps. Over 4,000 steps 99% of held-out problems came at step 2,700 for 18 brackets and \
         3,550 for 21; over 6,000, at 4,150 for 26 (32 ended at 96%); over 10,000, at 6,950 for 32.";

    modular_watch(largest, p) =
        "Grokking: every number 0 to {largest} is one token, and the answer is (a + b) mod {p}. Training accuracy \
         reaches 100% early, by memorising, while held-out accuracy stays low; much later, weight decay makes the \
         model find the general rule and held-out accuracy jumps. The chart marks both moments.";
    modular_p(p) =
        "The preset's recipe is tuned for p = 97; at p = {p} its grokking may not show within 2,000 steps. \
         Measured: at p = 50 it memorised by step 150, and held-out problems reached 95% right only at the last \
         step, 2,000; at p = 200 the training problems are too many to memorise first, and held-out accuracy \
         reached 95% at step 600, before the training problems were all right (650).";
    modular_few(percent) =
        "Training on {percent}% of the problems, the model memorises them but may not find the rule within 2,000 \
         steps (at 0.15: memorised by step 400, 14% of held-out problems right at 2,000); a quarter generalises \
         within about 650-900.";
    modular_many(percent) =
        "Training on {percent}% of the problems, the model finds the rule as soon as it memorises them (at 0.5: \
         95% held out at step 250, all its training problems at 300), so there is no grokking gap to see; a \
         quarter shows it.";

    parity_running_watch() =
        "Each answer bit is the parity so far: the model reads the bit at its place and the answer before it. \
         Watch two diagonals form in the attention grid, one at the distance back to the bits and one on the \
         answer just written, as held-out accuracy climbs.";
    parity_final_watch() =
        "One answer bit, the parity of the whole string: every bit matters and no part of the string tells \
         anything alone, so held-out accuracy sits at chance (50%) for a long while. Watch whether and when it \
         jumps: small models often never find the rule without the running answer.";
    parity_final() =
        "The whole string's parity alone is the classic hard case for a transformer: the answer depends on every \
         bit at once, with no running parity to build it from, and held-out strings stay at chance (45-57% right \
         after the preset's 600 steps, three seeds). Each prefix's parity forms within 200 steps.";

    recall_watch() =
        "Key–value pairs, then ? and the keys, each followed by its value. The keys after ? are given; for each \
         value the model must find that key's earlier occurrence among the pairs and copy the digit after it. At \
         first it only guesses among the values it has seen (held-out accuracy near chance). Watch the heads view: \
         a previous-token head forms in the first layer (each digit takes in its key), then a head in the second \
         attends from each key asked for to the digit after its earlier occurrence, and held-out accuracy jumps as \
         it clicks into place, within about a hundred steps. The chart marks the step. Trained by AdamW instead \
         (the Optimizer field), the same model guesses for thousands of steps before the circuit forms.";
    recall_pairs(pairs) =
        "With {pairs, plural, one {# pair} other {# pairs}} the model stays near chance: 0% of held-out problems right \
         after the preset's 1,000 steps at 7 to 10 pairs and at 16, and after 5,000 at 7 and 8. 6 pairs take about 240 \
         steps, 4 or 5 under 100.";
    recall_one_query() =
        "With 1 query a problem gives the loss one answer to learn from, and the circuit does not form: 34% of \
         held-out problems were right after 3,000 steps. 2 queries take about 140 steps, 4 about 60.";

    repeat_watch() =
        "Random letters, then the same letters again: given the first letter of the copy, the model writes the \
         rest. Watch the heads view: a previous-token head forms in the first layer, then an induction head in the \
         second looks back at the letter after the earlier copy of the current one, and the loss drops as they \
         click into place. The chart marks the step.";
    repeat_short(length) =
        "At a sequence length of {length} most copies are short enough to learn without an induction head, and \
         with the preset's recipe one does not form: 15-24% of held-out copies right after its 1,000 steps at \
         lengths 9 and 11 (three seeds at 9), and 57-73% at best after up to 4,000 steps (lengths 5, 9 and 12). \
         From 13 up it forms within 1,000 steps (14: step 450, 16: 300-600), and at 2 or 3 within 300. Trained by \
         Muon instead (the Optimizer field), it formed within 1,000 steps at every length from 3 to 14 but 7 (seed \
         1337: 70% held out; at 8, on two seeds of three).";

    reverse_watch() =
        "Watch the attention grid: as accuracy rises, the heads draw the anti-diagonal, each answer letter reading \
         the prompt letter in the mirror position.";

    sort_watch() =
        "Watch the attention grid: each answer position comes to look at the prompt letter that belongs next in \
         alphabetical order.";
    sort_long(length) =
        "At {length, plural, one {# letter} other {# letters}} the preset's 1,800 steps are too few: 48 letters take \
         about 1,600 steps, and at 64 held-out problems ended at 84% right; over 3,000 steps 99% came at step 2,850.";
}
