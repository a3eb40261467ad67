//! Reading a sum a person typed, as the two arithmetic tasks (`addition.rs`, `modular.rs`) do.

use crate::words::{problems, Words};

/// Parses `a+b` (an optional `=` after it): two numbers whose values `read` checks.
pub(super) fn parse_sum(
    text: &str,
    example: &str,
    read: impl Fn(&str) -> Result<u64, Words>,
) -> Result<(u64, u64), Words> {
    let typed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(c) = typed.chars().find(|c| !(c.is_ascii_digit() || *c == '+' || *c == '=')) {
        return Err(problems::not_digit(format!("{c:?}")));
    }
    let body = typed.strip_suffix('=').unwrap_or(&typed);
    let parts: Vec<&str> = body.split('+').collect();
    match parts[..] {
        [a, b] if !a.is_empty() && !b.is_empty() && !body.contains('=') => Ok((read(a)?, read(b)?)),
        _ => Err(problems::type_sum(example.to_string())),
    }
}

/// The value of `number` (all digits) if it has at most `max_digits` of them.
pub(super) fn read_number(number: &str, max_digits: usize) -> Result<u64, Words> {
    if number.len() > max_digits {
        return Err(problems::too_many_digits(number.to_string(), max_digits));
    }
    number.parse().map_err(|_| problems::not_number(number.to_string()))
}
