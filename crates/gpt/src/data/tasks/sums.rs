//! Reading a sum a person typed, as the two arithmetic tasks (`addition.rs`, `modular.rs`) do.

/// Parses `a+b` (an optional `=` after it): two numbers whose values `read` checks.
pub(super) fn parse_sum(
    text: &str,
    example: &str,
    read: impl Fn(&str) -> Result<u64, String>,
) -> Result<(u64, u64), String> {
    let typed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(c) = typed.chars().find(|c| !(c.is_ascii_digit() || *c == '+' || *c == '=')) {
        return Err(format!("{c:?} is not a digit: this task's symbols are the digits, + and ="));
    }
    let body = typed.strip_suffix('=').unwrap_or(&typed);
    let parts: Vec<&str> = body.split('+').collect();
    match parts[..] {
        [a, b] if !a.is_empty() && !b.is_empty() && !body.contains('=') => Ok((read(a)?, read(b)?)),
        _ => Err(format!("type a sum as two numbers joined by +, such as {example}: the model writes the answer")),
    }
}

/// The value of `number` (all digits) if it has at most `max_digits` of them.
pub(super) fn read_number(number: &str, max_digits: usize) -> Result<u64, String> {
    if number.len() > max_digits {
        return Err(format!("{number} has more than {max_digits} digits"));
    }
    number.parse().map_err(|_| format!("{number} is not a number"))
}
