//! The words every stage uses for what happened to a mutant: its compile class, and how each of
//! its evaluations ended. The store keeps them as text (`name`), every other crate as these enums.

use serde::{Deserialize, Serialize};

/// A mutant's compile class (`kmut compile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Does not compile; the log says why.
    Stillborn,
    /// Compiles to the original's image: no behaviour can differ.
    Equivalent,
    /// Compiles to the image of an earlier mutant (the store names which).
    Duplicate,
    /// A distinct image, or a launch mutant (which reuses the original image).
    Live,
}

impl Class {
    pub const ALL: [Class; 4] = [Class::Stillborn, Class::Equivalent, Class::Duplicate, Class::Live];

    pub fn name(self) -> &'static str {
        match self {
            Class::Stillborn => "stillborn",
            Class::Equivalent => "equivalent",
            Class::Duplicate => "duplicate",
            Class::Live => "live",
        }
    }

    pub fn parse(text: &str) -> Result<Class, String> {
        Class::ALL.into_iter().find(|c| c.name() == text).ok_or_else(|| format!("unknown compile class `{text}`"))
    }
}

/// Mutants counted by compile class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClassCounts {
    /// Every mutant counted, whatever its class.
    pub generated: usize,
    pub stillborn: usize,
    pub equivalent: usize,
    pub duplicate: usize,
    pub live: usize,
}

impl ClassCounts {
    /// Column headers in the order of [`ClassCounts::values`].
    pub const HEADERS: [&'static str; 5] = ["generated", "stillborn", "equivalent", "duplicate", "live"];

    /// Count one mutant of `class`; `None` counts it as generated only (not classified yet).
    pub fn add(&mut self, class: Option<Class>) {
        self.generated += 1;
        match class {
            Some(Class::Stillborn) => self.stillborn += 1,
            Some(Class::Equivalent) => self.equivalent += 1,
            Some(Class::Duplicate) => self.duplicate += 1,
            Some(Class::Live) => self.live += 1,
            None => {}
        }
    }

    pub fn merge(&mut self, other: &ClassCounts) {
        self.generated += other.generated;
        self.stillborn += other.stillborn;
        self.equivalent += other.equivalent;
        self.duplicate += other.duplicate;
        self.live += other.live;
    }

    pub fn values(&self) -> [usize; 5] {
        [self.generated, self.stillborn, self.equivalent, self.duplicate, self.live]
    }
}

/// How one evaluation (a mutant on one input) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every launch returned and the output was compared with the reference.
    Completed,
    /// A launch failed (a CUDA error, the mutated host code raising, the worker dying).
    Crash,
    /// The watchdog stopped it: its kernels ran past their time budget.
    Timeout,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Crash => "crash",
            Outcome::Timeout => "timeout",
        }
    }

    pub fn parse(text: &str) -> Result<Outcome, String> {
        [Outcome::Completed, Outcome::Crash, Outcome::Timeout].into_iter().find(|o| o.name() == text).ok_or_else(|| format!("unknown outcome `{text}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for c in Class::ALL {
            assert_eq!(Class::parse(c.name()), Ok(c));
        }
        for o in [Outcome::Completed, Outcome::Crash, Outcome::Timeout] {
            assert_eq!(Outcome::parse(o.name()), Ok(o));
        }
        assert!(Class::parse("alive").unwrap_err().contains("alive"));
        assert!(Outcome::parse("hung").is_err());
    }

    #[test]
    fn counts_add_up_and_merge() {
        let mut a = ClassCounts::default();
        a.add(Some(Class::Live));
        a.add(Some(Class::Stillborn));
        a.add(None);
        assert_eq!(a.values(), [3, 1, 0, 0, 1]);
        let mut b = ClassCounts::default();
        b.add(Some(Class::Duplicate));
        b.merge(&a);
        assert_eq!(b.values(), [4, 1, 0, 1, 1]);
    }
}
