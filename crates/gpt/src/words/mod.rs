//! Words the core says to a person, kept language-free: each message is a code and its values,
//! which the page words from its catalog in the learner's language, and the English the CLI
//! prints. Every message is declared once, in the files below, by `messages!` (`message.rs`): its code, its
//! values and its English in ICU's message form (`{n, plural, one {# step} other {# steps}}`).

pub mod dictionaries;
pub mod files;
pub mod llc;
mod message;
pub mod problems;
pub mod runs;
pub mod settings;
pub mod tasks;
pub mod toy;
pub mod views;
pub mod walk;

pub use message::{fixed, term, Template, Value, Words};

/// Every message the core can say.
pub fn all() -> Vec<Template> {
    [
        settings::MESSAGES,
        problems::MESSAGES,
        tasks::MESSAGES,
        walk::MESSAGES,
        runs::MESSAGES,
        views::MESSAGES,
        dictionaries::MESSAGES,
        files::MESSAGES,
        toy::MESSAGES,
        llc::MESSAGES,
    ]
    .concat()
}

#[cfg(test)]
mod tests;
