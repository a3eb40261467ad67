//! The one error type of the core: every failure a user can cause is a value, never a panic.

use crate::words::Words;
use serde::Serialize;
use std::fmt;

/// What went wrong, with a message written for the person who can fix it.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A setting is invalid, alone or with others; the error names the setting.
    Invalid(FieldError),
    /// Something asked of a run that does not fit its state or settings.
    Config(Words),
    /// The training text cannot be used as given.
    Data(Words),
    /// Training diverged (a non-finite loss or gradient); the model was left as it was.
    Diverged(Words),
    /// A file could not be read as a checkpoint or fixture.
    Format(Words),
}

/// One invalid setting: where it is and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FieldError {
    /// Its path in a run's settings (`train.max_iters`, `model.n_head`, `bpe_vocab_size`), in a
    /// sample's settings (`temperature`), or `text`.
    pub field: String,
    /// A whole sentence that names the setting, so it reads alone too: in English, and as the
    /// words a page says in its reader's language.
    pub message: String,
    pub words: Words,
}

impl FieldError {
    pub fn new(field: &str, words: Words) -> FieldError {
        FieldError { field: field.to_string(), message: words.english.clone(), words }
    }
}

/// The first of `errors` as an error, or `Ok` when there are none.
pub fn first(errors: Vec<FieldError>) -> Result<()> {
    errors.into_iter().next().map_or(Ok(()), |p| Err(Error::Invalid(p)))
}

impl Error {
    /// What went wrong, as words a page says in its reader's language.
    pub fn words(&self) -> &Words {
        match self {
            Error::Invalid(p) => &p.words,
            Error::Config(w) | Error::Data(w) | Error::Diverged(w) | Error::Format(w) => w,
        }
    }
}

/// An error inside another's message: its words.
impl From<Error> for crate::words::Value {
    fn from(e: Error) -> crate::words::Value {
        e.words().clone().into()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words().english)
    }
}

impl std::error::Error for Error {}

/// Shorthand for results whose error is [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
