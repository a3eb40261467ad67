//! The one error type of the core: every failure a user can cause is a value, never a panic.

use std::fmt;

/// What went wrong, with a message written for the person who can fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The model or training settings are invalid.
    Config(String),
    /// The training text cannot be used as given.
    Data(String),
    /// Training diverged (a non-finite loss or gradient); the model was left as it was.
    Diverged(String),
    /// A file could not be read as a checkpoint or fixture.
    Format(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(m) | Error::Data(m) | Error::Diverged(m) | Error::Format(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results whose error is [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
