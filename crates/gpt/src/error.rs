//! The one error type of the core: every failure a user can cause is a value, never a panic.

use serde::Serialize;
use std::fmt;

/// What went wrong, with a message written for the person who can fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A setting is invalid, alone or with others; the error names the setting.
    Invalid(FieldError),
    /// Something asked of a run that does not fit its state or settings.
    Config(String),
    /// The training text cannot be used as given.
    Data(String),
    /// Training diverged (a non-finite loss or gradient); the model was left as it was.
    Diverged(String),
    /// A file could not be read as a checkpoint or fixture.
    Format(String),
}

/// One invalid setting: where it is and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FieldError {
    /// Its path in a run's settings (`train.max_iters`, `model.n_head`, `bpe_vocab_size`), in a
    /// sample's settings (`temperature`), or `text`.
    pub field: String,
    /// A whole sentence that names the setting, so it reads alone too.
    pub message: String,
}

impl FieldError {
    pub fn new(field: &str, message: impl Into<String>) -> FieldError {
        FieldError { field: field.to_string(), message: message.into() }
    }
}

/// The first of `errors` as an error, or `Ok` when there are none.
pub fn first(errors: Vec<FieldError>) -> Result<()> {
    errors.into_iter().next().map_or(Ok(()), |p| Err(Error::Invalid(p)))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(p) => f.write_str(&p.message),
            Error::Config(m) | Error::Data(m) | Error::Diverged(m) | Error::Format(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results whose error is [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
