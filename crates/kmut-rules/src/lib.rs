//! The mutation rules of kmut and the generator that applies them.
//!
//! A [`Rule`] is documentation (what it changes, why the fault is realistic, an example
//! before and after) plus a [`matchers::Matcher`] that finds its sites in one function's syntax
//! tree. [`catalogue::RULES`] is the versioned table of every rule; [`engine::mutate`] applies
//! a selection to a substrate.

pub mod catalogue;
mod context;
pub mod docs;
pub mod engine;
pub mod matchers;
mod rule;
pub mod select;
mod site;

pub use catalogue::{rule, rules_of, CATALOGUE_VERSION, RULES};
pub use engine::{mutate, SubstrateMutants};
pub use rule::Rule;
pub use site::Site;
