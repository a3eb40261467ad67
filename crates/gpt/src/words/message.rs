//! A message the core says: its code, its values and its English, and how messages are declared
//! (with an English template in the ICU subset the page's `format` reads too: `{x}`,
//! `{x, number}`, `{x, select, a {…} other {…}}`, `{x, plural, =0 {…} one {…} other {…}}`, `#`).

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// A message: the code a catalog words it by, its values, and its English.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Words {
    pub code: &'static str,
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, WordsValue>"))]
    pub values: BTreeMap<&'static str, Value>,
    pub english: String,
}

/// A value a message fills in.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[cfg_attr(feature = "ts", tsify(rename = "WordsValue"))]
#[serde(untagged)]
pub enum Value {
    /// A number, written in the reader's way (1,234.5 or 1.234,5).
    Number(f64),
    /// A number with so many decimals (a loss: 2.3026).
    Fixed { fixed: f64, digits: usize },
    /// Text shown as it is: a token, a name in code, a choice a `select` picks by.
    Text(String),
    /// Words the catalogs word by their English (a setting's label): `{ "term": "Modulus p" }`.
    Term { term: &'static str },
    /// A message inside this one.
    Words(Box<Words>),
    /// Several, as a list (English joins them with semicolons).
    List(#[cfg_attr(feature = "ts", tsify(type = "WordsValue[]"))] Vec<Value>),
}

/// A declared message: its code, its English template and the values it takes.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Template {
    pub code: &'static str,
    pub english: &'static str,
    pub values: &'static [&'static str],
}

impl Words {
    /// The message `code` with `values`, its English rendered from `english`.
    pub fn new(code: &'static str, english: &str, values: Vec<(&'static str, Value)>) -> Words {
        let values: BTreeMap<_, _> = values.into_iter().collect();
        Words { code, english: render(english, &values), values }
    }
}

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english)
    }
}

/// A term the catalogs word by its English.
pub fn term(english: &'static str) -> Value {
    Value::Term { term: english }
}

/// `x` with `digits` decimals.
pub fn fixed(x: f64, digits: usize) -> Value {
    Value::Fixed { fixed: x, digits }
}

/// A choice `select` picks by.
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Text(b.to_string())
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl From<Vec<Words>> for Value {
    fn from(list: Vec<Words>) -> Value {
        Value::List(list.into_iter().map(Value::from).collect())
    }
}

impl From<Words> for Value {
    fn from(w: Words) -> Value {
        Value::Words(Box::new(w))
    }
}

/// An `f32` as the shortest decimal that reads back as it (0.1, not 0.100000001), so every
/// language shows the number the setting holds.
impl From<f32> for Value {
    fn from(x: f32) -> Value {
        Value::Number(x.to_string().parse().unwrap_or(f64::from(x)))
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                Value::Number(n as f64)
            }
        }
    )*};
}
numbers!(usize, u32, u64, i32, i64, f64);

/// Declares messages: each `name(value, ...) = "English"` becomes a function that makes its
/// [`Words`] (code `prefix.name`) from any values that convert to a [`Value`], and `MESSAGES`
/// lists them all.
macro_rules! messages {
    ($prefix:literal; $($(#[$doc:meta])* $name:ident($($value:ident),*) = $english:literal;)*) => {
        #[allow(unused_imports)]
        use $crate::words::message::{Template, Value, Words};
        $(
            $(#[$doc])*
            pub fn $name($($value: impl Into<Value>),*) -> Words {
                Words::new(concat!($prefix, ".", stringify!($name)), $english, vec![$((stringify!($value), $value.into())),*])
            }
        )*
        /// Every message this file declares.
        pub const MESSAGES: &[Template] = &[$(Template {
            code: concat!($prefix, ".", stringify!($name)),
            english: $english,
            values: &[$(stringify!($value)),*],
        }),*];
    };
}
pub(crate) use messages;

/// `template` with its arguments filled from `values`, in English.
pub(super) fn render(template: &str, values: &BTreeMap<&'static str, Value>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + matching(&rest[open..]);
        out.push_str(&argument(&rest[open + 1..close], values));
        rest = &rest[close + 1..];
    }
    out + rest
}

/// The offset of the `}` closing the `{` that `text` starts with (its end when unclosed).
fn matching(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return i,
            '}' => depth -= 1,
            _ => {}
        }
    }
    text.len() - 1
}

fn argument(body: &str, values: &BTreeMap<&'static str, Value>) -> String {
    let mut parts = body.splitn(3, ',').map(str::trim);
    let name = parts.next().unwrap_or_default();
    let Some(value) = values.get(name) else { return format!("{{{name}}}") };
    match (parts.next(), value) {
        (Some("select"), _) => {
            let chosen = case(parts.next().unwrap_or_default(), &english(value));
            render(chosen, values)
        }
        (Some("plural"), Value::Number(n)) => {
            let cases = parts.next().unwrap_or_default();
            let exact = format!("={}", number(*n));
            let chosen = find(cases, &exact).or_else(|| find(cases, if *n == 1.0 { "one" } else { "other" }));
            render(&chosen.unwrap_or_else(|| case(cases, "other")).replace('#', &number(*n)), values)
        }
        _ => english(value),
    }
}

/// The message of `key` among `a {…} other {…}`, else `other`'s.
fn case<'a>(cases: &'a str, key: &str) -> &'a str {
    find(cases, key).or_else(|| find(cases, "other")).unwrap_or_default()
}

fn find<'a>(cases: &'a str, key: &str) -> Option<&'a str> {
    let mut rest = cases;
    while let Some(open) = rest.find('{') {
        let close = open + matching(&rest[open..]);
        if rest[..open].trim() == key {
            return Some(&rest[open + 1..close]);
        }
        rest = &rest[close + 1..];
    }
    None
}

/// A value as English shows it.
fn english(value: &Value) -> String {
    value.to_string()
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&match self {
            Value::Number(n) => number(*n),
            Value::Fixed { fixed, digits } => format!("{fixed:.digits$}"),
            Value::Text(s) => s.clone(),
            Value::Term { term } => term.to_string(),
            Value::Words(w) => w.english.clone(),
            Value::List(items) => items.iter().map(Value::to_string).collect::<Vec<_>>().join("; "),
        })
    }
}

/// A number as Rust writes it: whole ones without a point.
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}
