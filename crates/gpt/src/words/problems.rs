//! Why a problem a person typed cannot be asked (the problems panel): each says what to type.

super::message::messages! { "problems";
    not_bracket(symbol, example) =
        "{symbol} is not a bracket: type round and square ones, such as {example}";
    closes_none(symbol) = "the {symbol} closes no bracket of its kind: type brackets a parser accepts";
    leave_open(example) = "leave some brackets open for the model to close, such as {example}";
    type_letters(repeat, last, example) =
        "type {repeat, select, true {two or more letters} other {some letters}} from a to {last}, such as {example}";
    before_mark(example) = "type only the letters before '>', such as {example}: the model writes the answer";
    not_letter(symbol, last) = "{symbol} is not one of this task's symbols, the letters a to {last}";
    not_below_p(value, p, largest) = "{value} is not below p = {p}: this task's numbers are 0 to {largest}";
    not_bit(symbol, example) =
        "{symbol} is not a bit: type 0s and 1s, such as {example}; the model writes the parity";
    bits(length, example) = "type 1 to {length, plural, one {# bit} other {# bits}}, such as {example}";
    not_key(symbol, last) = "{symbol} is not a key: keys are the letters a to {last}";
    not_value(symbol, last) = "{symbol} is not a value: values are the digits 0 to {last}";
    type_pairs(example) = "type pairs of a key and a value, then ? and keys to ask for, such as {example}";
    key_twice(symbol) = "{symbol} is a key twice: each pair has its own";
    not_pair_key(symbol) = "{symbol} is none of the pairs' keys";
    asked_twice(symbol) = "{symbol} is asked for twice: ask for each key once";
    not_digit(symbol) = "{symbol} is not a digit: this task's symbols are the digits, + and =";
    type_sum(example) = "type a sum as two numbers joined by +, such as {example}: the model writes the answer";
    too_many_digits(number, max) = "{number} has more than {max, plural, one {# digit} other {# digits}}";
    not_number(number) = "{number} is not a number";
    too_long(tokens, block_size) =
        "this problem and its answer take {tokens, plural, one {# token} other {# tokens}}, more than the model's \
         block size ({block_size})";
}
